package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.ExitStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code postern mcp-stdio} through the CLI entry: a config that cannot be built starts nothing and
 * answers the client's initialize with why; one that fails only its schema check (run after the
 * initialize answer) answers the next request with why and stops the gateway before any tool is served.
 */
class McpStdioCommandTest {
    private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n";
    private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n";

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    @TempDir
    Path dir;

    /** The line's CONFIG_INVALID error to request {@code id}: its message and data name the file and the pointer. */
    private static void assertToldWhy(String line, int id, Path config, String pointer) throws Exception {
        com.fasterxml.jackson.databind.JsonNode m = JSON.readTree(line);
        assertEquals(id, m.path("id").asInt(-1), line);
        assertEquals(-1004, m.path("error").path("code").asInt(), line);
        String message = m.path("error").path("message").asText();
        assertTrue(message.contains(config.toString()) && message.contains(pointer), line);
        assertEquals(config.toString(), m.path("error").path("data").path("file").asText(), line);
        assertTrue(m.path("error").path("data").path("problems").toString().contains(pointer), line);
    }

    @Test
    void aConfigThatFailsItsSchemaCheckStopsTheGatewayAfterTheInitializeAnswerBeforeAnyTool() throws Exception {
        Path config = dir.resolve("bad.json");
        Files.writeString(config, "{\"journal\":{\"directory\":\"./journal\"},\"http\":{\"targets\":[{\"name\":\"a\","
                + "\"baseUrl\":\"http://127.0.0.1:9\",\"methods\":[\"GET\"],\"pathPrefixes\":[\"/\"],\"retries\":3}]}}");

        CliRun run = CliRun.withStdin(CALL + INITIALIZED + LIST, "mcp-stdio", "--config", config.toString());

        // The schema check runs after the initialize answer (start-up); tools/list is answered with why, and no tool.
        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        java.util.List<String> out = run.stdout.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        assertEquals(2, out.size(), "the initialize answer and the error to tools/list: " + run);
        assertTrue(out.get(0).startsWith("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\""), run.toString());
        assertToldWhy(out.get(1), 2, config, "/http/targets/0/retries");
        assertTrue(run.err().contains(config.toString()) && run.err().contains("/http/targets/0/retries"), run.err());
    }

    @Test
    void aSessionThatSentOnlyInitializeStillEndsWithTheInvalidConfigsStatus() throws Exception {
        Path config = dir.resolve("bad.json");
        Files.writeString(config, "{\"journal\":{\"directory\":\"./journal\"},\"sesion\":{\"maxInFlight\":2}}");

        CliRun run = CliRun.withStdin(CALL, "mcp-stdio", "--config", config.toString());

        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        assertEquals(1, run.stdout.toString(java.nio.charset.StandardCharsets.UTF_8).lines().count(), run.toString());
        assertTrue(run.err().contains("postern: invalid configuration") && run.err().contains("sesion"), run.err());
    }

    @Test
    void aConfigThatFailsItsSchemaCheckAnswersARequestBeforeInitializeWithWhyAndNoTool() throws Exception {
        Path config = dir.resolve("bad.json");
        Files.writeString(config, "{\"journal\":{\"directory\":\"./journal\"},\"sesion\":{\"maxInFlight\":2}}");

        CliRun run = CliRun.withStdin(LIST, "mcp-stdio", "--config", config.toString());

        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        java.util.List<String> out = run.stdout.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, out.size(), "one line, the error, and no tool list: " + run);
        assertToldWhy(out.get(0), 2, config, "sesion");
        assertTrue(run.err().contains("sesion"), run.err());
    }

    @Test
    void aConfigThatCannotBeBuiltAnswersInitializeWithWhyAndStartsNothing() throws Exception {
        Path config = dir.resolve("bad.json");
        Files.writeString(config, "{\"journal\":{\"directory\":\"./journal\"},\"http\":{\"targets\":[{\"name\":\"a\","
                + "\"baseUrl\":\"ftp://127.0.0.1:9\",\"methods\":[\"GET\"],\"pathPrefixes\":[\"/\"]}]}}");

        CliRun run = CliRun.withStdin(INITIALIZED + CALL + LIST, "mcp-stdio", "--config", config.toString());

        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        java.util.List<String> out = run.stdout.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, out.size(), "the notification is skipped, initialize answered with why, nothing after: " + run);
        assertToldWhy(out.get(0), 1, config, "/http/targets/0");
        assertFalse(Files.exists(dir.resolve("journal")), "the journal is never opened");
        assertTrue(run.err().contains(config.toString()) && run.err().contains("/http/targets/0"), run.err());
    }

    @Test
    void aMissingConfigFileIsTheAnswerToInitialize() throws Exception {
        Path config = dir.resolve("absent.json");
        CliRun run = CliRun.withStdin(CALL, "mcp-stdio", "--config", config.toString());
        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        java.util.List<String> out = run.stdout.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        assertEquals(1, out.size(), run.toString());
        assertEquals(-1004, JSON.readTree(out.get(0)).path("error").path("code").asInt(), out.get(0));
        assertTrue(out.get(0).contains(config.toString()), out.get(0));
        assertTrue(run.err().contains(config.toString()), run.err());
    }

    @Test
    void aMissingConfigOptionIsAUsageErrorOnStderr() {
        CliRun run = CliRun.withStdin(CALL, "mcp-stdio");
        assertEquals(ExitStatus.USAGE, run.exit, run.toString());
        assertEquals(0, run.stdout.size(), run.toString());
        assertTrue(run.err().contains("--config is required"), run.err());
    }

    @Test
    void helpGoesToStderrBecauseStdoutIsTheProtocolStream() {
        CliRun run = CliRun.of("mcp-stdio", "--help");
        assertEquals(ExitStatus.OK, run.exit);
        assertEquals(0, run.stdout.size(), run.toString());
        assertTrue(run.err().startsWith("usage: postern mcp-stdio --config FILE"), run.err());
    }

    @Test
    void aJournalThatCannotBeOpenedFailsStartUpWithNothingOnStdout() throws Exception {
        // A regular file where the journal directory should be: fails for root too.
        Files.writeString(dir.resolve("journal"), "not a directory");
        Path config = dir.resolve("postern.json");
        Files.writeString(config, "{\"journal\":{\"directory\":\"./journal\"}}");

        CliRun run = CliRun.withStdin(CALL, "mcp-stdio", "--config", config.toString());

        assertEquals(ExitStatus.STARTUP_FAILED, run.exit, run.toString());
        assertEquals(0, run.stdout.size(), run.toString());
        assertEquals(0, run.stdinReads.get(), "no request is read before the journal is open");
        assertTrue(run.err().contains("cannot open the journal"), run.err());
    }

    @Test
    void aJournalThatCannotBeOpenedIsExplainedNotOnlyNamed() throws Exception {
        // The exception's own message is only the path here; the line must say what went wrong with it.
        Files.writeString(dir.resolve("journal"), "not a directory");
        Path config = dir.resolve("postern.json");
        Files.writeString(config, "{\"journal\":{\"directory\":\"./journal\"}}");

        CliRun run = CliRun.withStdin(CALL, "mcp-stdio", "--config", config.toString());

        assertEquals(ExitStatus.STARTUP_FAILED, run.exit, run.toString());
        assertTrue(run.err().contains("FileAlreadyExistsException"), run.err());
    }

    @Test
    void anActionsJournalThatIsADirectoryFailsStartUpWithNothingOnStdout() throws Exception {
        // chmod does not bind root; a directory where the file must be does.
        Files.createDirectories(dir.resolve("journal/actions.jsonl"));
        Path config = dir.resolve("postern.json");
        Files.writeString(config, "{\"journal\":{\"directory\":\"./journal\"}}");

        CliRun run = CliRun.withStdin(CALL, "mcp-stdio", "--config", config.toString());

        assertEquals(ExitStatus.STARTUP_FAILED, run.exit, run.toString());
        assertEquals(0, run.stdout.size(), run.toString());
        assertEquals(0, run.stdinReads.get());
        assertTrue(run.err().contains("actions.jsonl is not a regular file"), run.err());
    }
}
