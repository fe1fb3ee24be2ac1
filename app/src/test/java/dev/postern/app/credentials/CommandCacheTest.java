package dev.postern.app.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.config.CredentialSource;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A command credential's value is kept at most its {@code cacheSeconds} (on a clock the test moves),
 * concurrent first uses share one run, a failure is not kept for calls, and masking holds back from
 * a command that just failed.
 */
class CommandCacheTest {
    private static final CredentialRef DB = new CredentialRef("db-password");
    private static final CredentialSource.Command PASS = new CredentialSource.Command(List.of("pass", "show", "db"),
            Duration.ofSeconds(10), Duration.ofSeconds(300));

    private final AtomicLong now = new AtomicLong(1_000);
    private final AtomicInteger runs = new AtomicInteger();

    private CommandCache counting() {
        return new CommandCache(now::get, (ref, source) -> Secret.of("value-" + runs.incrementAndGet()));
    }

    @Test
    void aValueIsKeptForItsLifetimeAndThenTheCommandRunsAgain() throws Exception {
        CommandCache cache = counting();

        assertEquals("value-1", cache.get(DB, PASS).revealAsString());
        now.addAndGet(Duration.ofSeconds(299).toNanos());
        assertEquals("value-1", cache.get(DB, PASS).revealAsString(), "still fresh");
        assertEquals(Optional.of(Secret.of("value-1")), cache.forMasking(DB, PASS));
        now.addAndGet(Duration.ofSeconds(1).toNanos());

        assertEquals("value-2", cache.get(DB, PASS).revealAsString(), "past cacheSeconds the command runs again");
        assertEquals(2, runs.get());
    }

    @Test
    void concurrentFirstUsesRunTheCommandOnce() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CommandCache cache = new CommandCache(now::get, (ref, source) -> {
            runs.incrementAndGet();
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Secret.of("shared-value");
        });
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Secret>> calls = new ArrayList<>();
            calls.add(pool.submit(() -> cache.get(DB, PASS)));
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            for (int i = 0; i < 7; i++) {
                calls.add(pool.submit(() -> cache.get(DB, PASS)));
            }
            calls.add(pool.submit(() -> cache.forMasking(DB, PASS).orElseThrow()));
            release.countDown();
            for (Future<Secret> call : calls) {
                assertEquals("shared-value", call.get(30, TimeUnit.SECONDS).revealAsString());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, runs.get(), "one run served every first use");
    }

    @Test
    void aFailureIsNotKeptForCallsButMaskingWaitsOutTheLifetimeBeforeRunningItAgain() throws Exception {
        CommandCache cache = new CommandCache(now::get, (ref, source) -> {
            runs.incrementAndGet();
            throw new CredentialCommand.Failed(CredentialCommand.Reason.FAILED, "credential db-password: its command failed",
                    "credential db-password: command pass exited with status 2");
        });

        CredentialUnavailableException e = assertThrows(CredentialUnavailableException.class, () -> cache.get(DB, PASS));
        assertEquals("credential db-password: its command failed", e.getMessage());
        assertEquals("credential db-password: command pass exited with status 2", e.detail());
        assertThrows(CredentialUnavailableException.class, () -> cache.get(DB, PASS));
        assertEquals(2, runs.get(), "each call runs a failed command again");

        assertEquals(Optional.empty(), cache.forMasking(DB, PASS));
        assertEquals(2, runs.get(), "masking does not rerun a command that failed within cacheSeconds");
        now.addAndGet(Duration.ofSeconds(300).toNanos());
        assertEquals(Optional.empty(), cache.forMasking(DB, PASS));
        assertEquals(3, runs.get(), "after cacheSeconds masking tries it again");
    }
}
