package dev.postern.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.transport.StdoutGuard;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The JVM floor of DESIGN §9: a bare loop that reads a line, parses it with Jackson and writes one
 * back (a result for a request, an error for a line that is not JSON, nothing for a notification).
 * No checks, no limits, no threads: what any JVM stdio server costs at least. Its stdout is its
 * protocol stream, as for any stdio server. Run it with {@code StdioLoadDriver --command}.
 */
public final class JvmFloor {
    private JvmFloor() {
    }

    public static void main(String[] args) throws IOException {
        ObjectMapper json = new ObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // The floor claims stdout the way the gateway does, through the one guard, so no second class touches it.
        OutputStream out = new BufferedOutputStream(StdoutGuard.claimProtocolStream(), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            ObjectNode reply = json.createObjectNode().put("jsonrpc", "2.0");
            try {
                JsonNode message = json.readTree(line);
                if (!message.has("id")) {
                    continue;
                }
                reply.set("id", message.get("id"));
                reply.putObject("result").putArray("content").addObject().put("type", "text").put("text", "ok");
            } catch (IOException e) {
                reply.putNull("id");
                reply.putObject("error").put("code", -32700).put("message", "parse error");
            }
            out.write(json.writeValueAsBytes(reply));
            out.write('\n');
            out.flush();
        }
    }
}
