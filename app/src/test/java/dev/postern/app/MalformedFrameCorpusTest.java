package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.app.corpus.CorpusCase;
import dev.postern.fixtures.StdoutTranscript;
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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The malformed-frame corpus through the real session loop in memory, with recording executors at
 * the seam: the fast twin of {@code MalformedFrameCorpusIT}. The policy mirrors the IT's config
 * (target {@code loopback}, host {@code box} with command {@code greet}).
 */
class MalformedFrameCorpusTest {
    static final String HTTP_BASE = "http://127.0.0.1:9";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    static Stream<CorpusCase> cases() {
        return CorpusCase.load().stream();
    }

    static Policy corpusPolicy() {
        HttpTarget loopback = new HttpTarget("loopback", Origin.parseBaseUrl(HTTP_BASE), Set.of("GET"), List.of("/v1"),
                Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, true);
        SshHost box = new SshHost("box", "127.0.0.1", 22, "deploy",
                new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty()), Optional.empty(),
                Optional.of("SHA256:" + "A".repeat(43)), Duration.ofSeconds(5), 1024,
                List.of(new SshCommandSpec("greet", List.of("echo", "{name}"),
                        Map.of("name", new ParamSpec.StringParam(Optional.of(Pattern.compile("[a-z]+")), Optional.empty(), 16)))));
        return Policy.of(List.of(loopback), List.of(box));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void noCaseReachesAnExecutorAndTheSessionEndsAsTheManifestSays(CorpusCase c) throws Exception {
        SessionHarness h = new SessionHarness(dir, corpusPolicy()).run(c.input(HTTP_BASE));
        String context = "stderr:\n" + h.stderr.toString(StandardCharsets.UTF_8);

        List<JsonNode> messages = StdoutTranscript.assertProtocolOnly(h.stdout.toByteArray(), "in-memory session " + c.name(),
                h.stderr.toByteArray());
        assertEquals(c.closes() ? ExitStatus.PROTOCOL_ERROR : ExitStatus.OK, h.exit, c.name() + "\n" + context);
        c.assertTranscript(messages, h.exit == ExitStatus.PROTOCOL_ERROR, context);

        List<String> actions = new ArrayList<>();
        h.http.attempts().forEach(p -> actions.add(describe(p)));
        h.ssh.attempts().forEach(p -> actions.add(describe(p)));
        c.assertActions(actions, context);
        if (c.suffixRuns()) {
            AuthorizedHttpRequest next = h.http.attempts().stream()
                    .filter(p -> p.uri().toString().contains(c.suffixMarker())).findFirst().orElseThrow();
            assertEquals("GET", next.method());
            assertEquals(HTTP_BASE + c.suffixPath(), next.uri().toString(), "the next call carries exactly its own URL");
            assertEquals(List.of(), next.headers(), "the next call inherits no header");
            assertEquals(Optional.empty(), next.body(), "the next call inherits no body");
        }
        assertEquals(stages(c), journaledStages(), "decisions journal rows for " + c.name());
    }

    static List<String> stages(CorpusCase c) {
        return c.stage().equals("none") ? List.of() : List.of(c.stage());
    }

    private List<String> journaledStages() throws IOException {
        Path decisions = dir.resolve("decisions.jsonl");
        List<String> stages = new ArrayList<>();
        if (Files.exists(decisions)) {
            for (String row : Files.readAllLines(decisions, StandardCharsets.UTF_8)) {
                stages.add(JSON.readTree(row).get("stage").textValue());
            }
        }
        return stages;
    }

    static String describe(AuthorizedHttpRequest p) {
        return p.method() + " " + p.uri() + " " + p.headers() + " " + p.body().orElse("");
    }

    static String describe(AuthorizedSshCommand p) {
        return p.host().name() + " " + String.join(" ", p.argv());
    }
}
