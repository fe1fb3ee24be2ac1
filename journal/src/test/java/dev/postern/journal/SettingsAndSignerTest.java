package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal's settings, its checkpoint signer and the privacy rule's single-file entry points, at their bounds. */
class SettingsAndSignerTest {
    @TempDir
    Path dir;

    private static PrivateKey ed25519() throws Exception {
        return KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPrivate();
    }

    @Test
    void aSignerTakesAnEd25519KeyOnlyAndCheckpointsAtLeastEveryRow() throws Exception {
        PrivateKey rsa = KeyPairGenerator.getInstance("RSA").generateKeyPair().getPrivate();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CheckpointSigner(rsa, 5));
        assertEquals("a checkpoint key is Ed25519, not RSA", e.getMessage());
        assertEquals(1, new CheckpointSigner(ed25519(), 1).everyRows());
        assertThrows(IllegalArgumentException.class, () -> new CheckpointSigner(ed25519(), 0));
    }

    @Test
    void aSignerFromPemCheckpointsAtTheDefaultAndNeverShowsItsKey() throws Exception {
        Ed25519Keys keys = Ed25519Keys.fromJdk();
        CheckpointSigner signer = CheckpointSigner.fromPem(keys.privatePem());
        assertEquals(Checkpoints.DEFAULT_EVERY_ROWS, signer.everyRows());
        assertEquals("CheckpointSigner[Ed25519, every " + Checkpoints.DEFAULT_EVERY_ROWS + " rows]", signer.toString());
        assertFalse(signer.toString().contains(keys.privatePem().lines().skip(1).findFirst().orElseThrow()));
    }

    @Test
    void settingsRotateAtOneByteOrMoreAndCarryTheirSigner() throws Exception {
        assertEquals(1, JournalSettings.rotatingAt(1).rotateBytes());
        assertThrows(IllegalArgumentException.class, () -> JournalSettings.rotatingAt(0));
        CheckpointSigner signer = new CheckpointSigner(ed25519(), 3);
        assertEquals(Optional.of(signer), JournalSettings.rotatingAt(10).withSigner(Optional.of(signer)).signer());
    }

    @Test
    void aFileMadeOrFoundIsPrivateAndWhatWasTightenedIsSaid() throws Exception {
        Path made = dir.resolve("made.jsonl");
        assertEquals(Optional.empty(), PrivateFiles.file(made));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
        Path found = Files.writeString(dir.resolve("found.jsonl"), "x");
        Files.setPosixFilePermissions(found, PosixFilePermissions.fromString("rw-r-----"));
        Optional<String> note = PrivateFiles.file(found);
        assertEquals(Optional.of(found + " was readable by group or others (rw-r-----); made rw-------"), note);
        assertEquals("x", Files.readString(found), "an existing file keeps its content");
    }

    @Test
    void theJournalFilesOfADirectoryAreTheOnesPosternWrites() throws Exception {
        for (String name : List.of("actions.jsonl", "decisions.000003.jsonl", "journal.lock", "rate-limits.json", "notes.txt")) {
            Files.writeString(dir.resolve(name), "");
        }
        List<String> names = PrivateFiles.journalFiles(dir).stream().map(p -> p.getFileName().toString()).sorted().toList();
        assertEquals(List.of("actions.jsonl", "decisions.000003.jsonl", "journal.lock", "rate-limits.json"), names);
        assertTrue(Files.exists(dir.resolve("notes.txt")));
    }
}
