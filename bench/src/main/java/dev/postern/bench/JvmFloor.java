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
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * The JVM floor of DESIGN §9: a bare loop that reads a line, parses it with Jackson and writes one
 * back (a result for a request, an error for a line that is not JSON, nothing for a notification).
 * No checks, no limits, no threads: what any JVM stdio server costs at least. Its stdout is its
 * protocol stream, as for any stdio server. Run it with {@code StdioLoadDriver --command}.
 *
 * <p>It is also the floor of the HTTP figure: a {@code tools/call} of {@code http_request} is a
 * GET of its {@code url} with HttpClient 5 on the reading thread (one pooled client, as the load
 * driver's direct side uses), answered with the status. No policy, no journal, no hand-off to another
 * thread: what relaying a GET through a separate process costs at least. It relays no
 * {@code sql_query} (answered -32601, so the driver leaves that figure out). Arguments are ignored
 * (the driver passes {@code {config}} so that its HTTP section runs this command).
 */
public final class JvmFloor {
    private JvmFloor() {
    }

    public static void main(String[] args) throws IOException {
        ObjectMapper json = new ObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        // The floor claims stdout the way the gateway does, through the one guard, so no second class touches it.
        OutputStream out = new BufferedOutputStream(StdoutGuard.claimProtocolStream(), 1 << 16);
        CloseableHttpClient http = HttpClients.custom().disableAutomaticRetries().disableRedirectHandling().build();
        String line;
        while ((line = in.readLine()) != null) {
            ObjectNode reply = json.createObjectNode().put("jsonrpc", "2.0");
            try {
                JsonNode message = json.readTree(line);
                if (!message.has("id")) {
                    continue;
                }
                reply.set("id", message.get("id"));
                String tool = "tools/call".equals(message.path("method").asText()) ? message.path("params").path("name").asText() : "";
                if (tool.equals("sql_query")) {
                    // No database relay here: say so, so that the driver leaves the SQL figure out instead of timing "ok".
                    reply.putObject("error").put("code", -32601).put("message", "the floor relays no sql_query");
                } else {
                    String text = !tool.equals("http_request") ? "ok"
                            : "status " + http.execute(new HttpGet(message.path("params").path("arguments").path("url").asText()), response -> {
                                EntityUtils.consume(response.getEntity());
                                return response.getCode();
                            });
                    reply.putObject("result").putArray("content").addObject().put("type", "text").put("text", text);
                }
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
