package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.executor.http.HttpActionExecutor;
import dev.postern.executor.sql.SqlActionExecutor;
import dev.postern.executor.ssh.SshActionExecutor;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.InMemoryCredentials;
import dev.postern.fixtures.LocalPostgres;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.protocol.tools.HttpRequestKind;
import dev.postern.protocol.tools.SshExecKind;
import dev.postern.protocol.tools.ToolResults;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A body, an SSH stream or SQL rows that the executor got within the operator's cap reach the agent
 * through the real gateway (its own wiring, the real executors against loopback fakes and a real
 * PostgreSQL), within the gateway's result cap of {@link ToolResults#DEFAULT_MAX_RESULT_BYTES}
 * however many of their bytes need escaping: whole up to the sizes the tools' descriptions promise,
 * cut and flagged truncated past them, never {@code RESPONSE_TOO_LARGE}.
 */
class BodyWithinCapTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long LINE_CAP = ToolResults.DEFAULT_MAX_RESULT_BYTES;

    @TempDir
    Path dir;

    // ---- http_request ----

    @Test
    void aMebibyteOfNulBytesWithinTheDefaultCapComesBackWholeAsBase64() throws Exception {
        byte[] nul = new byte[1 << 20];
        JsonNode body = httpCall(1 << 20, nul);
        assertEquals("base64", body.get("bodyEncoding").textValue());
        assertArrayEquals(nul, Base64.getDecoder().decode(body.get("body").textValue()));
        assertFalse(body.get("truncated").asBoolean());
    }

    @Test
    void aBodyOfMixedControlCharactersQuotesAndBackslashesComesBackWhole() throws Exception {
        byte[] mixed = new byte[1 << 20];
        byte[] alphabet = "\u0000\u0001\u001b\u001f\"\\\n\t\r\u0007".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < mixed.length; i++) {
            mixed[i] = alphabet[i % alphabet.length];
        }
        JsonNode body = httpCall(1 << 20, mixed);
        assertArrayEquals(mixed, decoded(body, "body"));
        assertFalse(body.get("truncated").asBoolean());
    }

    @Test
    void aBodyExactlyAtTheLargestCapReturnedWholeComesBackWholeWhateverItsBytes() throws Exception {
        int cap = HttpRequestKind.WHOLE_BODY_BYTES;
        byte[] nul = new byte[cap];
        JsonNode body = httpCall(cap, nul);
        assertEquals("base64", body.get("bodyEncoding").textValue());
        assertArrayEquals(nul, Base64.getDecoder().decode(body.get("body").textValue()));
        assertFalse(body.get("truncated").asBoolean());
    }

    @Test
    void oneBytePastThatCapIsCutAtTheCapAndFlaggedTruncated() throws Exception {
        int cap = HttpRequestKind.WHOLE_BODY_BYTES;
        byte[] nul = new byte[cap + 1];
        JsonNode body = httpCall(cap, nul);
        assertArrayEquals(Arrays.copyOf(nul, cap), Base64.getDecoder().decode(body.get("body").textValue()));
        assertTrue(body.get("truncated").asBoolean());
    }

    @Test
    void aBodyWithinACapTooLargeForAnyResultComesBackCutToFitAndFlaggedTruncated() throws Exception {
        byte[] nul = new byte[8 << 20];
        JsonNode body = httpCall(64 << 20, nul);
        byte[] got = Base64.getDecoder().decode(body.get("body").textValue());
        assertTrue(got.length > 3_000_000 && got.length < nul.length, "cut to what fits: " + got.length);
        assertArrayEquals(Arrays.copyOf(nul, got.length), got);
        assertTrue(body.get("truncated").asBoolean());
    }

    @Test
    void plainTextTooLargeForAnyResultStaysTextCutAtACharacterAndFlaggedTruncated() throws Exception {
        byte[] text = "Zürich, a plain line of text\n".repeat(300_000).getBytes(StandardCharsets.UTF_8);
        JsonNode body = httpCall(64 << 20, text);
        assertEquals("text", body.get("bodyEncoding").textValue());
        String got = body.get("body").textValue();
        assertTrue(new String(text, StandardCharsets.UTF_8).startsWith(got) && got.length() > 1_000_000, "a prefix: " + got.length());
        assertTrue(body.get("truncated").asBoolean());
    }

    /** One GET answered with {@code body} as text/plain by a target capped at {@code maxResponseBytes}; its structured content. */
    private JsonNode httpCall(long maxResponseBytes, byte[] body) throws Exception {
        try (FakeHttpService target = FakeHttpService.start();
                HttpActionExecutor http = new HttpActionExecutor(new InMemoryCredentials())) {
            target.respond("/v1/body", 200, Map.of("Content-Type", "text/plain"), body);
            Policy policy = Policy.of(List.of(new HttpTarget("api", Origin.parseBaseUrl("http://127.0.0.1:" + target.port()),
                    Set.of("GET"), List.of("/v1"), Set.of(), Optional.empty(), Duration.ofSeconds(60), maxResponseBytes, true)), List.of());
            return call(policy, http, "http_request",
                    "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:" + target.port() + "/v1/body\"}");
        }
    }

    // ---- ssh_exec ----

    @Test
    void sshStreamsOfControlCharactersAtTheirCapComeBackWhole() throws Exception {
        byte[] stdout = new byte[1 << 20];
        byte[] stderr = new byte[1 << 20];
        for (int i = 0; i < stdout.length; i++) {
            stdout[i] = (byte) (i % 0x20);
            stderr[i] = (byte) (i % 3 == 0 ? '"' : i % 3 == 1 ? 0x01 : '\n');
        }
        JsonNode out = sshCall(1 << 20, stdout, stderr);
        assertArrayEquals(stdout, decoded(out, "stdout"));
        assertArrayEquals(stderr, decoded(out, "stderr"));
        assertFalse(out.get("stdoutTruncated").asBoolean());
        assertFalse(out.get("stderrTruncated").asBoolean());
    }

    @Test
    void sshStreamsAtTheLargestCapReturnedWholeComeBackWholeAndOneBytePastIsFlagged() throws Exception {
        int cap = SshExecKind.WHOLE_STREAM_BYTES;
        byte[] stdout = new byte[cap];
        byte[] stderr = new byte[cap + 1];
        JsonNode out = sshCall(cap, stdout, stderr);
        assertArrayEquals(stdout, decoded(out, "stdout"));
        assertArrayEquals(new byte[cap], decoded(out, "stderr"));
        assertFalse(out.get("stdoutTruncated").asBoolean());
        assertTrue(out.get("stderrTruncated").asBoolean());
    }

    @Test
    void sshStreamsWithinACapTooLargeForAnyResultComeBackCutToFitAndFlagged() throws Exception {
        byte[] stdout = new byte[4 << 20];
        byte[] stderr = "small\n".getBytes(StandardCharsets.UTF_8);
        JsonNode out = sshCall(64 << 20, stdout, stderr);
        byte[] got = decoded(out, "stdout");
        assertTrue(got.length > 2_000_000 && got.length < stdout.length, "cut to what fits: " + got.length);
        assertTrue(out.get("stdoutTruncated").asBoolean());
        assertEquals("small\n", out.get("stderr").textValue());
        assertFalse(out.get("stderrTruncated").asBoolean());
    }

    private JsonNode sshCall(long maxOutputBytes, byte[] stdout, byte[] stderr) throws Exception {
        try (FakeSshServer server = FakeSshServer.start()) {
            InMemoryCredentials credentials = new InMemoryCredentials().put("k", server.generateClientKey(dir).privateKeyText());
            server.respond(command -> FakeSshServer.Reply.exit(stdout, stderr, 0));
            SshHost box = new SshHost("box", "127.0.0.1", server.port(), "deploy", new SshAuth.Key(new CredentialRef("k"), Optional.empty()),
                    Optional.of(server.writeKnownHosts(dir.resolve("known_hosts"))), Optional.empty(), Duration.ofSeconds(60),
                    maxOutputBytes, List.of(new SshCommandSpec("dump", List.of("dump"), Map.of())));
            try (SshActionExecutor ssh = new SshActionExecutor(credentials)) {
                return call(Policy.of(List.of(), List.of(box)), ssh, "ssh_exec", "{\"host\":\"box\",\"command\":\"dump\"}");
            }
        }
    }

    // ---- sql_query ----

    @Test
    void sqlValuesFullOfControlCharactersAreCountedAsRenderedAndComeBackWithinTheCaps() throws Exception {
        int maxResponseBytes = 1 << 20;
        // Each value is 150,000 characters, 700,000 bytes rendered: one row fits the cap, the second would not.
        JsonNode rows = sqlCall(maxResponseBytes, "SELECT repeat(chr(1) || chr(31) || '\"', 50000) AS v FROM generate_series(1, 30)");
        assertTrue(rows.get("truncated").asBoolean());
        assertEquals(1, rows.get("rows").size(), "the rendered values stop at maxResponseBytes");
        assertEquals("\u0001\u001f\"".repeat(50000), rows.get("rows").get(0).get(0).textValue());
        assertTrue(renderedValues(rows) <= maxResponseBytes, "rendered values " + renderedValues(rows));
    }

    @Test
    void sqlValuesOfControlCharactersWhoseRenderingFitsTheCapAllComeBackUntruncated() throws Exception {
        int maxResponseBytes = 1 << 20;
        // Five values of 30,000 characters, 140,000 bytes rendered each: 700,000 in all.
        JsonNode rows = sqlCall(maxResponseBytes, "SELECT repeat(chr(1) || chr(31) || '\"', 10000) AS v FROM generate_series(1, 5)");
        assertFalse(rows.get("truncated").asBoolean());
        assertEquals(5, rows.get("rows").size());
        assertTrue(renderedValues(rows) <= maxResponseBytes, "rendered values " + renderedValues(rows));
    }

    @Test
    void sqlRowsWithinACapTooLargeForAnyResultStopWhereTheResultIsFullAndAreFlagged() throws Exception {
        JsonNode rows = sqlCall(64 << 20, "SELECT repeat(chr(1), 100000) AS v FROM generate_series(1, 40)");
        assertTrue(rows.get("truncated").asBoolean());
        int n = rows.get("rows").size();
        assertTrue(n > 0 && n < 40, n + " rows");
        assertEquals(n, rows.get("rowCount").asInt());
    }

    private JsonNode sqlCall(long maxResponseBytes, String sql) throws Exception {
        try (LocalPostgres pg = LocalPostgres.start()) {
            String password = "body-fits-db-password-3c9e";
            pg.psql("postgres", "CREATE DATABASE shop");
            pg.psql("shop", "CREATE ROLE agent LOGIN PASSWORD '" + password + "'");
            SqlDatabase shop = new SqlDatabase("shop", pg.host(), pg.port(), "shop", "agent", new CredentialRef("db"),
                    SqlDatabase.Tls.disabled(), true, Duration.ofSeconds(60), 1000, maxResponseBytes,
                    List.of(new SqlStatementSpec("dump", sql, Map.of())));
            try (SqlActionExecutor executor = new SqlActionExecutor(new InMemoryCredentials().put("db", password))) {
                return call(Policy.of(shop), executor, "sql_query", "{\"database\":\"shop\",\"statement\":\"dump\"}");
            }
        }
    }

    /** The bytes of the rows' values as JSON, as maxResponseBytes counts them (4 more a value, for separators). */
    private static long renderedValues(JsonNode structured) throws Exception {
        long n = 0;
        for (JsonNode row : structured.get("rows")) {
            for (JsonNode value : row) {
                n += JSON.writeValueAsBytes(value).length;
            }
        }
        return n;
    }

    // ---- the session ----

    /**
     * One call through a live session with the gateway's default result cap: its answer must be a
     * success whose text item and structuredContent together fit the cap, the same JSON twice.
     */
    private JsonNode call(Policy policy, ActionExecutor<?> executor, String tool, String arguments) throws Exception {
        try (LiveSession s = new LiveSession(dir.resolve("journal-" + System.nanoTime()), policy, 1, LINE_CAP, List.of(executor)).handshake()) {
            s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":"
                    + arguments + "}}\n");
            String line = s.nextLine();
            JsonNode result = JSON.readTree(line).get("result");
            String text = result.get("content").get(0).get("text").textValue();
            assertFalse(result.get("isError").asBoolean(), () -> text.substring(0, Math.min(text.length(), 2000)));
            long rendered = text.getBytes(StandardCharsets.UTF_8).length + JSON.writeValueAsBytes(text).length;
            assertTrue(rendered <= LINE_CAP, "rendered " + rendered + " bytes, over the cap of " + LINE_CAP);
            assertTrue(line.getBytes(StandardCharsets.UTF_8).length <= LINE_CAP + 256, "the line is the result and its envelope");
            assertEquals(JSON.readTree(text), result.get("structuredContent"), "the text item is the structured JSON");
            assertEquals(ExitStatus.OK, s.finish(Duration.ofSeconds(60)));
            return result.get("structuredContent");
        }
    }

    /** A stream's bytes, read as its encoding field says. */
    private static byte[] decoded(JsonNode structured, String field) {
        String encoding = structured.get(field + "Encoding").textValue();
        String value = structured.get(field).textValue();
        return "base64".equals(encoding) ? Base64.getDecoder().decode(value) : value.getBytes(StandardCharsets.UTF_8);
    }
}
