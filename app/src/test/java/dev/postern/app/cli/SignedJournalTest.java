package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.ExitStatus;
import dev.postern.journal.Ed25519Keys;
import dev.postern.journal.HashChain;
import dev.postern.fixtures.FakeHttpService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code journal.signingKey} end to end in one JVM: a gateway session signs both journals when it
 * ends; {@code audit verify --public-key} accepts them, and catches a chain recomputed without the
 * key, which the chain alone cannot; a key that cannot be used stops start-up.
 */
class SignedJournalTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    @TempDir
    Path dir;

    FakeHttpService http;
    Ed25519Keys keys;
    Path publicKey;

    @BeforeEach
    void start() throws Exception {
        http = FakeHttpService.start();
        http.respond("/v1/item", 200, Map.of(), "item".getBytes(StandardCharsets.UTF_8));
        keys = Ed25519Keys.fromJdk();
        publicKey = Files.writeString(dir.resolve("journal.pub.pem"), keys.publicPem());
    }

    @AfterEach
    void stop() {
        http.close();
    }

    private String call(int id, String path) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + http.baseUri() + path + "\"}}}\n";
    }

    private Path config(String keyPem) throws Exception {
        Path key = dir.resolve("journal-key.pem");
        Files.writeString(key, keyPem);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        return Files.writeString(dir.resolve("postern.json"), """
                {
                  "journal": { "directory": "journal", "signingKey": "journal-key" },
                  "credentials": { "journal-key": { "file": "journal-key.pem" } },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"], "allowPrivateAddresses": true } ] }
                }
                """.formatted(http.baseUri()));
    }

    private CliRun session(Path config) {
        return CliRun.withStdin(INIT + call(2, "/v1/item") + call(3, "/admin") + call(4, "/v1/item"), "mcp-stdio", "--config", config.toString());
    }

    private Path journal() {
        return dir.resolve("journal");
    }

    @Test
    void aSignedSessionVerifiesWithThePublicKeyAndEndsWithACheckpointInEachJournal() throws Exception {
        CliRun run = session(config(keys.privatePem()));
        assertEquals(ExitStatus.OK, run.exit, run.toString());

        CliRun verify = CliRun.of("audit", "verify", journal().toString(), "--public-key", publicKey.toString());

        assertEquals(ExitStatus.OK, verify.exit, verify.toString());
        assertTrue(verify.out().contains("actions.jsonl: 1 checkpoint, every signature verified; the last signs the rows up to seq 7; no unsigned rows"),
                verify.out());
        assertTrue(verify.out().contains("decisions.jsonl: 1 checkpoint, every signature verified"), verify.out());
        assertTrue(verify.out().contains("both chains intact, every checkpoint's signature verified"), verify.out());
        assertFalse(run.err().contains("BEGIN"), "the key never reaches stderr: " + run.err());
    }

    @Test
    void aChainRecomputedWithoutTheKeyIsCaughtOnlyWithThePublicKey() throws Exception {
        assertEquals(ExitStatus.OK, session(config(keys.privatePem())).exit);
        Path actions = journal().resolve("actions.jsonl");
        List<ObjectNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(actions, StandardCharsets.UTF_8)) {
            rows.add((ObjectNode) JSON.readTree(line));
        }
        // The forger turns the first call's target into another and recomputes every hash after it, checkpoints included.
        assertEquals("intent", rows.get(2).get("kind").asText(), "rows 1 and 2 are the session's start and its client");
        rows.get(2).put("target", "elsewhere");
        String prev = HashChain.GENESIS;
        StringBuilder rewritten = new StringBuilder();
        for (ObjectNode r : rows) {
            r.put("prev", prev);
            if (r.path("kind").asText().equals("checkpoint")) {
                ((ObjectNode) r.get("head")).put("sha256", prev);
            }
            String line = JSON.writeValueAsString(r);
            prev = HashChain.sha256(line);
            rewritten.append(line).append('\n');
        }
        Files.writeString(actions, rewritten);

        CliRun withoutKey = CliRun.of("audit", "verify", journal().toString());
        assertEquals(ExitStatus.OK, withoutKey.exit, "the chain alone holds: " + withoutKey);

        CliRun withKey = CliRun.of("audit", "verify", journal().toString(), "--public-key", publicKey.toString());
        assertEquals(ExitStatus.CHECK_FAILED, withKey.exit, withKey.toString());
        assertTrue(withKey.out().contains("actions.jsonl: BROKEN: row 8 is a checkpoint whose signature does not verify with the given public key"),
                withKey.out());
    }

    @Test
    void aChainStrippedOfItsCheckpointsIsReportedAsNotSignedWithTheKey() throws Exception {
        assertEquals(ExitStatus.OK, session(config(keys.privatePem())).exit);
        Path actions = journal().resolve("actions.jsonl");
        List<String> lines = Files.readAllLines(actions, StandardCharsets.UTF_8);
        Files.writeString(actions, String.join("\n", lines.subList(0, lines.size() - 1)) + "\n");

        CliRun withKey = CliRun.of("audit", "verify", journal().toString(), "--public-key", publicKey.toString());

        assertEquals(ExitStatus.CHECK_FAILED, withKey.exit, withKey.toString());
        assertTrue(withKey.out().contains("actions.jsonl: NOT SIGNED: no checkpoint in 7 rows"), withKey.out());
    }

    @Test
    void rowsAfterTheLastCheckpointAreCountedNotFailed() throws Exception {
        Path config = config(keys.privatePem());
        assertEquals(ExitStatus.OK, session(config).exit);
        // A second gateway on the directory without the key: its rows are unsigned.
        Files.writeString(config, Files.readString(config).replace(", \"signingKey\": \"journal-key\"", ""));
        assertEquals(ExitStatus.OK, session(config).exit);

        CliRun verify = CliRun.of("audit", "verify", journal().toString(), "--public-key", publicKey.toString());

        assertEquals(ExitStatus.OK, verify.exit, verify.toString());
        assertTrue(verify.out().contains("actions.jsonl: 1 checkpoint, every signature verified; the last signs the rows up to seq 7; "
                + "7 rows after it unsigned"), verify.out());
    }

    @Test
    void aSigningKeyThatIsNotAnEd25519PrivateKeyStopsStartUpWithoutShowingIt() throws Exception {
        CliRun run = session(config(keys.publicPem()));

        assertEquals(ExitStatus.STARTUP_FAILED, run.exit, run.toString());
        assertEquals(0, run.stdout.size(), run.toString());
        assertTrue(run.err().contains("journal.signingKey: credential journal-key: a PEM PUBLIC KEY where a PRIVATE KEY belongs"), run.err());
        assertFalse(run.err().contains(keys.publicPem().lines().skip(1).findFirst().orElseThrow()), run.err());
        assertEquals(0, http.requestCount());
    }

    @Test
    void aSigningKeyNamingNoCredentialIsAConfigErrorAtItsPointer() throws Exception {
        Path config = config(keys.privatePem());
        Files.writeString(config, Files.readString(config).replace("\"signingKey\": \"journal-key\"", "\"signingKey\": \"nope\""));

        CliRun run = session(config);

        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        assertTrue(run.err().contains("/journal/signingKey"), run.err());
    }

    @Test
    void aPublicKeyFileThatIsNoKeyIsAUsageError() throws Exception {
        assertEquals(ExitStatus.OK, session(config(keys.privatePem())).exit);
        Path notKey = Files.writeString(dir.resolve("not-a-key.pem"), keys.privatePem());

        CliRun verify = CliRun.of("audit", "verify", journal().toString(), "--public-key", notKey.toString());

        assertEquals(ExitStatus.USAGE, verify.exit, verify.toString());
        assertTrue(verify.err().contains("a PEM PRIVATE KEY where a PUBLIC KEY belongs"), verify.err());
    }

    @Test
    void checkConfigSaysTheJournalIsSignedAndWithWhichCredentialNeverTheKey() throws Exception {
        CliRun run = CliRun.of("check-config", "--config", config(keys.privatePem()).toString());

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out().contains("journal: " + journal() + ", files rotated at 67108864 bytes, checkpoints signed with credential journal-key"),
                run.out());
        assertFalse(run.out().contains("BEGIN"), run.out());
    }
}
