package dev.postern.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mixed load run in small (2,000 requests through the packaged gateway), so that its checks
 * run in the default build: the run holds, and the journal check notices a row too many or too few.
 */
class MixedLoadTest {
    @TempDir
    static Path work;

    static MixedLoad.Result result;

    @BeforeAll
    static void runTwoThousandRequests() throws Exception {
        MixedLoad.Options options = new MixedLoad.Options(2_000, 8, 17, 0.1, 1, 65_536, work, work.resolve("report.txt"));
        Report report = new Report(System.err);
        result = MixedLoad.run(options, report);
        report.writeTo(options.out());
    }

    @Test
    void twoThousandPipelinedMixedRequestsAreEachAnsweredOnceWithOneEffectPerAllowedCall() throws IOException {
        assertEquals(List.of(), result.failures());
        assertTrue(result.plan().cancels() > 0, "the mix cancels some calls");
        try (var files = Files.list(result.journal())) {
            assertTrue(files.filter(f -> f.getFileName().toString().startsWith("actions.0")).count() > 0,
                    "the journal rotated during the run");
        }
        String report = Files.readString(work.resolve("report.txt"));
        assertTrue(report.contains("RESULT: every check held"), report);
    }

    @Test
    void journalCheckNoticesADuplicatedIntentAndAMissingDecision() throws IOException {
        Path copy = work.resolve("tampered");
        Files.createDirectories(copy);
        try (var files = Files.list(result.journal())) {
            for (Path f : files.toList()) {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        Path actions = copy.resolve("actions.jsonl");
        String intent = Files.readAllLines(actions, StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains("\"kind\":\"intent\"")).findFirst().orElseThrow();
        Files.writeString(actions, intent + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        Path decisions = copy.resolve("decisions.jsonl");
        List<String> rows = Files.readAllLines(decisions, StandardCharsets.UTF_8);
        Files.write(decisions, rows.subList(0, rows.size() - 1), StandardCharsets.UTF_8);

        List<String> failures = new ArrayList<>();
        MixedLoad.checkJournal(result.plan(), copy, failures);

        assertEquals(2, failures.size(), failures.toString());
        assertTrue(failures.stream().anyMatch(f -> f.contains("has 2 intent and 1 outcome rows")), failures.toString());
        assertTrue(failures.stream().anyMatch(f -> f.contains("has 0 decisions rows")), failures.toString());
    }
}
