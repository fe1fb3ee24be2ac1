package dev.postern.app;

import dev.postern.app.config.GatewayConfig;
import dev.postern.journal.FileAuditJournal;
import dev.postern.fixtures.RecordingExecutor;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.port.AuditJournal;
import dev.postern.protocol.tools.ToolResults;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs the real gateway — {@link Gateway}'s own wiring of McpServer, ToolCallService, PolicyEngine,
 * Dispatcher, FileAuditJournal, frame reader and writer — over in-memory bytes, with recording executors
 * substituted at the one registration point.
 */
final class SessionHarness {
    static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"seam\",\"version\":\"1\"}}}\n";
    static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    final RecordingExecutor<AuthorizedHttpRequest> http = RecordingExecutor.http();
    final RecordingExecutor<AuthorizedSshCommand> ssh = RecordingExecutor.ssh();
    final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    final Path journalDir;
    final Policy policy;
    private boolean redactArguments;
    ExitStatus exit;

    SessionHarness(Path journalDir) {
        this(journalDir, policy());
    }

    SessionHarness(Path journalDir, Policy policy) {
        this.journalDir = journalDir;
        this.policy = policy;
    }

    /** Runs the gateway with {@code journal.redactArguments: true}. */
    SessionHarness redactingArguments() {
        redactArguments = true;
        return this;
    }

    static Policy policy() {
        HttpTarget api = new HttpTarget("api", Origin.parseBaseUrl("http://127.0.0.1:9"), Set.of("GET"), List.of("/v1"),
                Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, true);
        SshHost web = new SshHost("web", "127.0.0.1", 22, "deploy",
                new SshAuth.Key(new CredentialRef("key"), Optional.empty()), Optional.empty(),
                Optional.of("SHA256:" + "A".repeat(43)), Duration.ofSeconds(5), 1024,
                List.of(new SshCommandSpec("tail", List.of("tail", "-n", "{lines}", "/var/log/app.log"),
                        Map.of("lines", new ParamSpec.IntegerParam(1, 500)))));
        return Policy.of(List.of(api), List.of(web));
    }

    static String httpCall(int id, String marker) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/" + marker + "\"}}}\n";
    }

    SessionHarness run(byte[] input) throws IOException {
        try (FileAuditJournal journal = Gateway.journal(config(), diagnostics())) {
            return run(input, journal);
        }
    }

    /** Runs the session over {@code input} with a journal the test opened (and closes) itself. */
    SessionHarness run(byte[] input, AuditJournal journal) {
        exit = Gateway.run(config(), journal, List.of(http, ssh), ToolResults.DEFAULT_MAX_RESULT_BYTES,
                new ByteArrayInputStream(input), stdout, diagnostics(), session -> { });
        return this;
    }

    /** The config the gateway runs on: this harness's policy and journal directory, four calls at once. */
    GatewayConfig config() {
        return config(journalDir, policy, 4, redactArguments);
    }

    /** A config for an in-memory gateway: no credentials, default frame and journal sizes. */
    static GatewayConfig config(Path journalDir, Policy policy, int maxInFlight) {
        return config(journalDir, policy, maxInFlight, false);
    }

    private static GatewayConfig config(Path journalDir, Policy policy, int maxInFlight, boolean redactArguments) {
        return new GatewayConfig(journalDir.resolve("postern.json"), policy, 1 << 20, maxInFlight, journalDir,
                GatewayConfig.DEFAULT_JOURNAL_ROTATE_BYTES, Map.of(), java.util.Optional.empty(), redactArguments, "0".repeat(64));
    }

    PrintStream diagnostics() {
        return new PrintStream(stderr, true, StandardCharsets.UTF_8);
    }

    SessionHarness run(String input) throws IOException {
        return run(input.getBytes(StandardCharsets.UTF_8));
    }

    List<String> lines() {
        String out = stdout.toString(StandardCharsets.UTF_8);
        return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }
}
