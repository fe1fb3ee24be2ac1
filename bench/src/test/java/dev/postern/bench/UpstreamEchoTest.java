package dev.postern.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The upstream section's subject: its call lines, the pin of a listing, and a config the gateway loads. */
class UpstreamEchoTest {
    private static final String LISTING = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":["
            + "{\"name\":\"add\",\"inputSchema\":{\"type\":\"object\"}},"
            + "{\"name\":\"echo\",\"description\":\"Echoes.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}}]}}";

    @TempDir
    Path dir;

    @Test
    void thePinIsEchosAndChangesWithItsDefinition() throws Exception {
        String pin = UpstreamEcho.pinOf(LISTING).orElseThrow();
        assertTrue(pin.matches("sha256:[0-9a-f]{64}"), pin);
        assertFalse(pin.equals(UpstreamEcho.pinOf(LISTING.replace("Echoes.", "Echoes, and more.")).orElseThrow()));
        assertEquals(Optional.empty(), UpstreamEcho.pinOf(LISTING.replace("\"echo\"", "\"other\"")));
    }

    @Test
    void theConfigLoadsWithOnlyEchoAllowlistedAtThePin() throws Exception {
        UpstreamEcho u = new UpstreamEcho("hostile", List.of("/bin/true"), "{\"text\":\"bench\"}", true);
        String pin = UpstreamEcho.pinOf(LISTING).orElseThrow();
        GatewayConfig config = dev.postern.app.Gateway.configLoader().load(u.writeConfig(dir.resolve("cfg"), pin));
        UpstreamServer server = config.policy().allowances(UpstreamServer.class).get(0);
        assertEquals(List.of("/bin/true"), server.command());
        assertEquals(List.of("echo"), server.tools().stream().map(UpstreamTool::name).toList());
        assertEquals(pin, server.tools().get(0).pin());
    }

    @Test
    void bothCallsCarryTheSameArgumentsUnderTheirOwnNames() {
        UpstreamEcho u = new UpstreamEcho("everything", List.of("/usr/bin/node"), "{\"message\":\"bench\"}", false);
        assertEquals("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"bench\"}}}",
                u.directCall(5));
        assertEquals(u.directCall(5).replace("\"echo\"", "\"everything__echo\""), u.gatewayCall(5));
    }

    @Test
    void aLogAddsItsOptionAndOnlyTheHostileUpstreamHasOne() throws Exception {
        Path log = dir.resolve("log.jsonl");
        UpstreamEcho logged = UpstreamEcho.hostile().withLog(log);
        assertEquals(List.of("--log", log.toString()), logged.command().subList(logged.command().size() - 2, logged.command().size()));
        Files.writeString(log, "{\"method\":\"initialize\"}\n{\"method\":\"tools/list\"}\n{\"method\":\"tools/call\"}\n",
                StandardCharsets.UTF_8);
        assertEquals(1, UpstreamEcho.toolsListsIn(log));
        UpstreamEcho real = new UpstreamEcho("everything", List.of("/usr/bin/node"), "{\"message\":\"bench\"}", false);
        assertThrows(IllegalStateException.class, () -> real.withLog(log));
    }

    @Test
    void aLineWithAMethodAndNoIdIsANotificationAndAnswersNothing() {
        byte[] note = "{\"method\":\"notifications/tools/list_changed\",\"jsonrpc\":\"2.0\"}".getBytes(StandardCharsets.UTF_8);
        byte[] request = "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\"}".getBytes(StandardCharsets.UTF_8);
        byte[] answer = "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}".getBytes(StandardCharsets.UTF_8);
        assertTrue(ResponseLine.parse(note, 0, note.length).notification());
        assertFalse(ResponseLine.parse(request, 0, request.length).notification(), "a request from the server has an id");
        assertEquals(new ResponseLine(3, 0, false), ResponseLine.parse(answer, 0, answer.length));
    }
}
