package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.ExitStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** postern init writes a starting config that check-config accepts, for every combination of kinds, and never overwrites a file. */
class InitCommandTest {
    private static final List<String> KINDS = List.of("http", "ssh", "sql", "mcp");

    @TempDir
    Path dir;

    @Test
    void theConfigWrittenForEveryCombinationOfKindsPassesCheckConfig() throws Exception {
        for (int mask = 1; mask < 1 << KINDS.size(); mask++) {
            List<String> kinds = new ArrayList<>();
            for (int i = 0; i < KINDS.size(); i++) {
                if ((mask & 1 << i) != 0) {
                    kinds.add(KINDS.get(i));
                }
            }
            Path out = dir.resolve("postern-" + String.join("-", kinds) + ".json");

            CliRun init = CliRun.of("init", "--kinds", String.join(",", kinds), "--out", out.toString());
            assertEquals(ExitStatus.OK, init.exit, init.toString());
            CliRun check = CliRun.of("check-config", "--config", out.toString());
            assertEquals(ExitStatus.OK, check.exit, kinds + ":\n" + Files.readString(out) + "\n" + check);
            for (String kind : KINDS) {
                assertEquals(kinds.contains(kind), Files.readString(out).contains("\"" + kind + "\": {"), kind + " in " + kinds);
            }
            String notes = Files.readString(dir.resolve(out.getFileName() + ".md"), StandardCharsets.UTF_8);
            for (String kind : kinds) {
                assertTrue(notes.contains("## " + kind + ":"), kind + " explained: " + notes);
            }
        }
    }

    @Test
    void withoutKindsItWritesAnHttpTarget() throws Exception {
        Path out = dir.resolve("postern.json");

        CliRun init = CliRun.of("init", "--out", out.toString());

        assertEquals(ExitStatus.OK, init.exit, init.toString());
        assertTrue(Files.readString(out).contains("\"http\": {"), Files.readString(out));
    }

    @Test
    void anExistingFileIsNeverOverwritten() throws Exception {
        Path out = dir.resolve("postern.json");
        Files.writeString(out, "mine");

        CliRun init = CliRun.of("init", "--kinds", "ssh", "--out", out.toString());

        assertEquals(ExitStatus.USAGE, init.exit, init.toString());
        assertEquals("mine", Files.readString(out));
        assertTrue(init.err().contains("already exists"), init.toString());
        assertTrue(!Files.exists(dir.resolve("postern.json.md")), "nothing written beside it either");
    }

    @Test
    void anUnknownKindIsAUsageError() {
        CliRun init = CliRun.of("init", "--kinds", "http,ftp", "--out", dir.resolve("x.json").toString());

        assertEquals(ExitStatus.USAGE, init.exit, init.toString());
        assertTrue(init.err().contains("unknown kind 'ftp'"), init.toString());
    }
}
