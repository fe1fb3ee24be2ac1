package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signed checkpoints (DESIGN §6): a checkpoint row signs the chain head every so many rows and when
 * the journal closes; a changed row is caught by the chain alone, a chain recomputed by someone
 * without the private key only by the signatures, with the public key.
 */
class CheckpointTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private ChainedJsonLines lines(Optional<CheckpointSigner> signer, long rotateBytes) throws IOException {
        return new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, Clock.systemUTC(), rotateBytes, signer);
    }

    private static ObjectNode row(String text) {
        return JSON.createObjectNode().put("kind", "note").put("text", text);
    }

    private static CheckpointSigner signer(Ed25519Keys keys, int every) throws GeneralSecurityException {
        return new CheckpointSigner(Checkpoints.privateKey(keys.privatePem()), every);
    }

    private ChainVerifier.FileResult verify(Optional<PublicKey> key) {
        return TestRows.verifier().verifyJournal(new JournalFiles(dir, "actions"), key);
    }

    private List<ObjectNode> rows() throws IOException {
        List<ObjectNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("actions.jsonl"), StandardCharsets.UTF_8)) {
            rows.add((ObjectNode) JSON.readTree(line));
        }
        return rows;
    }

    private void write(List<ObjectNode> rows) throws IOException {
        StringBuilder b = new StringBuilder();
        for (ObjectNode r : rows) {
            b.append(JSON.writeValueAsString(r)).append('\n');
        }
        Files.writeString(dir.resolve("actions.jsonl"), b.toString(), StandardCharsets.UTF_8);
    }

    /** What a forger without the key does: change a row, then recompute every later prev (and every checkpoint's head) so the chain holds. */
    private void rewriteChain(List<ObjectNode> rows) throws IOException {
        String prev = HashChain.GENESIS;
        for (ObjectNode r : rows) {
            r.put("prev", prev);
            if (r.path("kind").asText().equals(Checkpoints.KIND)) {
                ((ObjectNode) r.get("head")).put("sha256", prev);
            }
            prev = HashChain.sha256(JSON.writeValueAsBytes(r));
        }
        write(rows);
    }

    private void twelveRowsSignedEveryFive(Ed25519Keys keys) throws Exception {
        try (ChainedJsonLines journal = lines(Optional.of(signer(keys, 5)), Long.MAX_VALUE)) {
            for (int i = 1; i <= 12; i++) {
                journal.append(row("row " + i), false);
            }
        }
    }

    @Test
    void checkpointsFollowEveryFifthRowAndTheCloseAndEachSignsTheRowBeforeIt() throws Exception {
        Ed25519Keys keys = Ed25519Keys.fromJdk();
        twelveRowsSignedEveryFive(keys);

        List<ObjectNode> rows = rows();
        List<Long> checkpoints = rows.stream().filter(r -> r.get("kind").asText().equals("checkpoint")).map(r -> r.get("seq").asLong()).toList();
        // One append per batch here (each append waits for its row): rows 1-5, checkpoint 6, rows 7-10, checkpoint 11, rows 12-14 ...
        assertEquals(15, rows.size(), "12 rows and 3 checkpoints: " + checkpoints);
        assertEquals(List.of(6L, 11L, 15L), checkpoints, "after seq passes 5 and 10, and at close");
        for (long seq : checkpoints) {
            JsonNode c = rows.get((int) seq - 1);
            assertEquals(seq - 1, c.get("head").get("seq").asLong());
            assertEquals(HashChain.sha256(JSON.writeValueAsBytes(rows.get((int) seq - 2))), c.get("head").get("sha256").asText());
            assertEquals("actions.jsonl", c.get("journal").asText());
            assertEquals("Ed25519", c.get("alg").asText());
        }
        ChainVerifier.FileResult verdict = verify(Optional.of(Checkpoints.publicKey(keys.publicPem())));
        assertTrue(verdict.intact(), verdict.toString());
        assertEquals(new ChainVerifier.Signing(3, 15, true), verdict.signing());
        assertEquals(0, verdict.unsignedRows());
    }

    @Test
    void closingTwiceOverADirectoryWhoseHeadIsACheckpointAddsNoSecondOne() throws Exception {
        Ed25519Keys keys = Ed25519Keys.fromJdk();
        twelveRowsSignedEveryFive(keys);
        try (ChainedJsonLines journal = lines(Optional.of(signer(keys, 5)), Long.MAX_VALUE)) {
            // Opened and closed without a row: the head is already signed.
        }
        assertEquals(15, rows().size());
    }

    @Test
    void aChangedRowIsCaughtWithoutTheKey() throws Exception {
        Ed25519Keys keys = Ed25519Keys.fromJdk();
        twelveRowsSignedEveryFive(keys);
        List<ObjectNode> rows = rows();
        rows.get(2).put("text", "row 3, but changed");
        write(rows);

        ChainVerifier.FileResult verdict = verify(Optional.empty());

        assertFalse(verdict.intact());
        assertEquals(3, verdict.broken().get().row(), verdict.toString());
        assertTrue(verdict.broken().get().reason().contains("was changed after it was written"), verdict.toString());
    }

    @Test
    void aChainRecomputedWithoutTheKeyPassesTheChainButNotTheSignatures() throws Exception {
        Ed25519Keys keys = Ed25519Keys.fromJdk();
        twelveRowsSignedEveryFive(keys);
        List<ObjectNode> rows = rows();
        rows.get(7).put("text", "row 7, but changed");
        rewriteChain(rows);

        ChainVerifier.FileResult withoutKey = verify(Optional.empty());
        assertTrue(withoutKey.intact(), "a recomputed chain is a valid chain: " + withoutKey);

        ChainVerifier.FileResult withKey = verify(Optional.of(Checkpoints.publicKey(keys.publicPem())));
        assertFalse(withKey.intact());
        ChainVerifier.Break b = withKey.broken().get();
        assertEquals(11, b.row(), "the first checkpoint after the changed row: " + b);
        assertTrue(b.reason().contains("signature does not verify with the given public key"), b.reason());
    }

    @Test
    void anotherKeysPublicHalfVerifiesNoCheckpoint() throws Exception {
        twelveRowsSignedEveryFive(Ed25519Keys.fromJdk());

        ChainVerifier.FileResult verdict = verify(Optional.of(Checkpoints.publicKey(Ed25519Keys.fromJdk().publicPem())));

        assertFalse(verdict.intact());
        assertEquals(6, verdict.broken().get().row());
    }

    @Test
    void aCheckpointMovedOrMadeToPointElsewhereIsCaughtWithoutTheKey() throws Exception {
        twelveRowsSignedEveryFive(Ed25519Keys.fromJdk());
        List<ObjectNode> rows = rows();
        ((ObjectNode) rows.get(5).get("head")).put("seq", 4);
        rewriteChain(rows);

        ChainVerifier.FileResult verdict = verify(Optional.empty());

        assertFalse(verdict.intact());
        assertTrue(verdict.broken().get().reason().contains("does not sign the row before it"), verdict.toString());
    }

    @Test
    void rowsAfterTheLastCheckpointAreCountedAsUnsigned() throws Exception {
        Ed25519Keys keys = Ed25519Keys.fromJdk();
        twelveRowsSignedEveryFive(keys);
        try (ChainedJsonLines unsigned = lines(Optional.empty(), Long.MAX_VALUE)) {
            unsigned.append(row("a gateway without the key"), false);
            unsigned.append(row("another"), false);
        }

        ChainVerifier.FileResult verdict = verify(Optional.of(Checkpoints.publicKey(keys.publicPem())));

        assertTrue(verdict.intact(), verdict.toString());
        assertEquals(17, verdict.rows());
        assertEquals(2, verdict.unsignedRows());
    }

    @Test
    void checkpointsSurviveRotationAndSignTheJournalNotTheFile() throws Exception {
        Ed25519Keys keys = Ed25519Keys.fromJdk();
        try (ChainedJsonLines journal = lines(Optional.of(signer(keys, 7)), 4096)) {
            for (int i = 0; i < 60; i++) {
                journal.append(row("r".repeat(150)), false);
            }
        }
        ChainVerifier.FileResult verdict = verify(Optional.of(Checkpoints.publicKey(keys.publicPem())));
        assertTrue(verdict.files().size() > 2, verdict.files().toString());
        assertTrue(verdict.intact(), verdict.toString());
        assertTrue(verdict.signing().checkpoints() >= 8, verdict.toString());
        assertEquals(0, verdict.unsignedRows());
    }

    @Test
    void keysMadeByOpensslSignAndVerify() throws Exception {
        Path keyDir = Files.createDirectories(dir.resolve("keys"));
        Optional<Ed25519Keys> keys = Ed25519Keys.fromOpenssl(keyDir);
        Assumptions.assumeTrue(keys.isPresent(), "openssl is not installed");
        twelveRowsSignedEveryFive(keys.get());

        ChainVerifier.FileResult verdict = verify(Optional.of(Checkpoints.publicKey(keys.get().publicPem())));

        assertTrue(verdict.intact(), verdict.toString());
        assertEquals(3, verdict.signing().checkpoints());
    }

    @Test
    void aKeyThatIsNotAnEd25519PrivateKeyInPemIsRefusedWithoutShowingIt() throws Exception {
        Ed25519Keys keys = Ed25519Keys.fromJdk();
        GeneralSecurityException publicForPrivate = assertThrows(GeneralSecurityException.class, () -> Checkpoints.privateKey(keys.publicPem()));
        assertTrue(publicForPrivate.getMessage().contains("a PEM PUBLIC KEY where a PRIVATE KEY belongs"), publicForPrivate.getMessage());
        GeneralSecurityException encrypted = assertThrows(GeneralSecurityException.class, () -> Checkpoints.privateKey(
                keys.privatePem().replace("PRIVATE KEY", "ENCRYPTED PRIVATE KEY")));
        assertTrue(encrypted.getMessage().contains("encrypted key cannot be used"), encrypted.getMessage());
        String rsa = "-----BEGIN PRIVATE KEY-----\n" + java.util.Base64.getEncoder().encodeToString(
                java.security.KeyPairGenerator.getInstance("RSA").generateKeyPair().getPrivate().getEncoded()) + "\n-----END PRIVATE KEY-----\n";
        GeneralSecurityException notEd = assertThrows(GeneralSecurityException.class, () -> Checkpoints.privateKey(rsa));
        assertTrue(notEd.getMessage().startsWith("not an Ed25519 private key"), notEd.getMessage());
        assertThrows(GeneralSecurityException.class, () -> Checkpoints.privateKey("secret-value-typed-here"));
        GeneralSecurityException typed = assertThrows(GeneralSecurityException.class, () -> Checkpoints.privateKey("secret-value-typed-here"));
        assertFalse(typed.getMessage().contains("secret-value"), typed.getMessage());
    }
}
