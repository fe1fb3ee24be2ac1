package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.corpus.CorpusCase;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.StdoutTranscript;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case of the malformed-frame corpus through the packaged launcher, one process per case,
 * against a real loopback HTTP service and a real in-process SSH server: stdout is protocol only,
 * the answer and the exit status are what the manifest says, and no case marker reaches either
 * server. The servers are shared; each case looks only at what arrived during its own run.
 */
class MalformedFrameCorpusIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path shared;

    static FakeHttpService http;
    static FakeSshServer ssh;
    static LoopbackGateway.SshTrust trust;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServers() throws Exception {
        http = FakeHttpService.start();
        for (CorpusCase c : CorpusCase.load()) {
            http.respond(c.suffixPath(), 200, Map.of("Content-Type", "text/plain"), "next".getBytes(StandardCharsets.UTF_8));
        }
        ssh = FakeSshServer.start();
        trust = LoopbackGateway.SshTrust.create(ssh, shared);
    }

    @AfterAll
    static void stopServers() {
        http.close();
        ssh.close();
    }

    static Stream<CorpusCase> cases() {
        return CorpusCase.load().stream();
    }

    /** The same targets as the in-memory twin's policy, pointing at the live fakes. */
    static Path writeConfig(Path dir) throws Exception {
        return LoopbackGateway.writeConfig(dir, http, ssh, trust);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void noCaseMarkerReachesAServerAndTheSessionEndsAsTheManifestSays(CorpusCase c) throws Exception {
        Path config = writeConfig(dir);
        int httpBefore = http.requestCount();
        int sshBefore = ssh.commandCount();
        int authBefore = ssh.authCount();

        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio", "--config", config.toString()),
                c.input(http.baseUri().toString()), dir, Map.of());

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        assertEquals(c.closes() ? 2 : 0, p.exitStatus, c.name() + "\n" + p.describe());
        c.assertTranscript(messages, p.exitStatus == 2, p.describe());

        List<FakeHttpService.RecordedRequest> requests = http.requests().subList(httpBefore, http.requestCount());
        List<String> actions = new ArrayList<>();
        for (FakeHttpService.RecordedRequest r : requests) {
            actions.add(r.method() + " " + r.path() + " " + r.headers() + " " + r.bodyAsString());
        }
        actions.addAll(ssh.commands().subList(sshBefore, ssh.commandCount()));
        c.assertActions(actions, p.describe());
        assertEquals(authBefore, ssh.authCount(), "no case even logged in to the SSH server");
        if (c.suffixRuns()) {
            FakeHttpService.RecordedRequest next = requests.stream()
                    .filter(r -> r.path().contains(c.suffixMarker())).findFirst().orElseThrow();
            assertEquals("GET", next.method());
            assertEquals(c.suffixPath(), next.path(), "the next call carries exactly its own path and no query");
            assertEquals(0, next.body().length, "the next call inherits no body");
            assertEquals(List.of(), next.headers().keySet().stream().filter(h -> h.startsWith("x-")).toList(),
                    "the next call inherits no header");
        }
        assertEquals(stages(c), journaledStages(), "decisions journal rows for " + c.name() + "\n" + p.describe());
    }

    private static List<String> stages(CorpusCase c) {
        return c.stage().equals("none") ? List.of() : List.of(c.stage());
    }

    private List<String> journaledStages() throws Exception {
        Path decisions = dir.resolve("journal").resolve("decisions.jsonl");
        List<String> stages = new ArrayList<>();
        if (Files.exists(decisions)) {
            for (String row : Files.readAllLines(decisions, StandardCharsets.UTF_8)) {
                stages.add(JSON.readTree(row).get("stage").textValue());
            }
        }
        return stages;
    }
}
