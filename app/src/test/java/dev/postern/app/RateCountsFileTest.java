package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.postern.policy.model.RateLimit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared counts file: buckets kept across instances, a torn or changed record neither blocks nor grants, and it is private. */
class RateCountsFileTest {
    private static final String ID = "0123456789abcdef0123456789abcdef";
    private static final String OTHER = "fedcba9876543210fedcba9876543210";

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_800_000_000_000_000_000L);

    private RateLimiter<String> limiter(RateCountsFile file, int calls) {
        return new RateLimiter<>(Map.of("api", RateLimit.perSeconds(calls, 3600), "other", RateLimit.perSeconds(calls, 3600)), now::get,
                file, (key, limit) -> key.equals("api") ? ID : OTHER);
    }

    private static int admitted(RateLimiter<String> l, String key, int tries) {
        int n = 0;
        for (int i = 0; i < tries; i++) {
            if (l.admit(key) instanceof RateLimiter.Admission.Admitted) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aSecondInstanceOnTheSameDirectorySeesTheFirstOnesCallsAndKeysStayApart() throws Exception {
        try (RateCountsFile a = RateCountsFile.in(dir); RateCountsFile b = RateCountsFile.in(dir)) {
            assertEquals(3, admitted(limiter(a, 5), "api", 3));
            assertEquals(2, admitted(limiter(b, 5), "api", 10), "only what is left of the bucket");
            assertEquals(5, admitted(limiter(b, 5), "other", 10), "another key has its own bucket");
        }
        try (RateCountsFile again = RateCountsFile.in(dir)) {
            assertEquals(0, admitted(limiter(again, 5), "api", 3), "reopened later in the window, still spent");
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(RateCountsFile.NAME))));
        assertEquals(2 * RateCountsFile.PAIR, Files.size(dir.resolve(RateCountsFile.NAME)));
    }

    @Test
    void aTornNewestRecordCountsAsTheStateBeforeItNeitherBlockingNorGranting() throws Exception {
        Path file = dir.resolve(RateCountsFile.NAME);
        try (RateCountsFile a = RateCountsFile.in(dir)) {
            assertEquals(2, admitted(limiter(a, 4), "api", 2));
        }
        // The second call's write went to the pair's second record (generation 2); cut it mid-record, as a crash would.
        byte[] bytes = Files.readAllBytes(file);
        for (int i = RateCountsFile.RECORD + 40; i < RateCountsFile.PAIR; i++) {
            bytes[i] = 0;
        }
        Files.write(file, bytes);
        try (RateCountsFile b = RateCountsFile.in(dir)) {
            // The torn write's call never returned (its process died in the write): one call counted, three left.
            assertEquals(3, admitted(limiter(b, 4), "api", 10));
        }
    }

    @Test
    void aTornAppendOfANewBucketIsWrittenOverAndTheRestOfTheFileStillCounts() throws Exception {
        Path file = dir.resolve(RateCountsFile.NAME);
        try (RateCountsFile a = RateCountsFile.in(dir)) {
            assertEquals(2, admitted(limiter(a, 2), "api", 5));
        }
        Files.write(file, "fedcba98765432".getBytes(StandardCharsets.US_ASCII), StandardOpenOption.APPEND);
        try (RateCountsFile b = RateCountsFile.in(dir)) {
            assertEquals(0, admitted(limiter(b, 2), "api", 5), "the whole pair before the torn tail still counts");
            assertEquals(2, admitted(limiter(b, 2), "other", 5));
        }
        assertEquals(2 * RateCountsFile.PAIR, Files.size(file), "the new pair replaced the torn tail");
    }

    @Test
    void aCountsFileOthersCanWriteIsRefusedAsUnavailable() throws Exception {
        try (RateCountsFile a = RateCountsFile.in(dir)) {
            limiter(a, 2).admit("api");
            Files.setPosixFilePermissions(dir.resolve(RateCountsFile.NAME), PosixFilePermissions.fromString("rw-rw-rw-"));
            RateLimiter.Admission refused = limiter(a, 2).admit("api");
            assertInstanceOf(RateLimiter.Admission.Unavailable.class, refused);
            assertEquals(true, ((RateLimiter.Admission.Unavailable) refused).why().contains("writable by group or others"), refused.toString());
        }
    }

    @Test
    void concurrentThreadsOnSeveralInstancesGetExactlyTheLimit() throws Exception {
        List<RateCountsFile> files = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            files.add(RateCountsFile.in(dir));
        }
        AtomicInteger admitted = new AtomicInteger();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (RateCountsFile f : files) {
            RateLimiter<String> l = limiter(f, 25);
            runs.add(CompletableFuture.runAsync(() -> admitted.addAndGet(admitted(l, "api", 20))));
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).join();
        for (RateCountsFile f : files) {
            f.close();
        }
        assertEquals(25, admitted.get());
    }
}
