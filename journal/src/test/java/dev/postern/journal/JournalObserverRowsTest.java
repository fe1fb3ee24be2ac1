package dev.postern.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.port.JournalObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a journal observer hears: every row once it is in its file, in the file's order, exactly as written; and each batch. */
class JournalObserverRowsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private static ObjectNode note(String text) {
        return JSON.createObjectNode().put("kind", "note").put("text", text);
    }

    /** Records what it hears. */
    private static final class Recording implements JournalObserver {
        final List<JournalRow> rows = new ArrayList<>();
        final List<String> batches = new ArrayList<>();
        final List<Long> nanos = new ArrayList<>();

        @Override
        public void written(JournalRow row) {
            rows.add(row);
        }

        @Override
        public void flushed(String journal, boolean forced, long nanos) {
            assertTrue(nanos >= 0, "a write's duration");
            batches.add(journal + (forced ? " forced" : " written"));
            this.nanos.add(nanos);
        }
    }

    @Test
    void everyRowIsHeardOnceAsWrittenInTheFilesOrderWithItsSeqAndHashCheckpointsToo() throws Exception {
        Recording heard = new Recording();
        Optional<CheckpointSigner> signer = Optional.of(
                new CheckpointSigner(KeyPairGenerator.getInstance("Ed25519").generateKeyPair().getPrivate(), 2));
        try (ChainedJsonLines lines = new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, Clock.systemUTC(), Long.MAX_VALUE,
                signer, heard)) {
            long before = System.nanoTime();
            lines.append(note("durable"), true);
            long took = System.nanoTime() - before;
            assertTrue(heard.nanos.get(0) <= took, "the write's duration is part of the append's: " + heard.nanos.get(0) + " > " + took);
            lines.append(note("not durable"), false);
            lines.append(note("third"), false);
        }
        List<String> file = Files.readAllLines(dir.resolve("actions.jsonl"), StandardCharsets.UTF_8);
        assertEquals(file.size(), heard.rows.size(), "every row of the file, the checkpoints among them: " + file);
        for (int i = 0; i < file.size(); i++) {
            JournalObserver.JournalRow row = heard.rows.get(i);
            assertEquals("actions", row.journal());
            assertEquals(i + 1, row.seq());
            assertEquals(file.get(i), row.json());
            assertEquals(HashChain.sha256(file.get(i)), row.sha256());
        }
        assertTrue(file.stream().anyMatch(l -> l.contains(Checkpoints.KIND)), "a checkpoint was written and heard");
        assertEquals("actions forced", heard.batches.get(0), "the durable row's batch was forced");
        assertEquals("actions written", heard.batches.get(1));
    }

    @Test
    void anObserverThatThrowsDoesNotFailTheAppendNorStopTheJournal() throws Exception {
        JournalObserver throwing = new JournalObserver() {
            @Override
            public void written(JournalRow row) {
                throw new IllegalStateException("a broken exporter");
            }
        };
        try (ChainedJsonLines lines = new ChainedJsonLines(new JournalFiles(dir, "actions"), JSON, Clock.systemUTC(), Long.MAX_VALUE,
                Optional.empty(), throwing)) {
            assertEquals(1, lines.append(note("a"), true));
            assertEquals(2, lines.append(note("b"), false));
        }
        assertEquals(2, Files.readAllLines(dir.resolve("actions.jsonl"), StandardCharsets.UTF_8).size());
    }
}
