package dev.postern.app.credentials;

import dev.postern.app.config.CredentialSource;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;

/**
 * The values of {@code command} credentials, each kept at most its {@code cacheSeconds} and then run
 * for again; callers that need a value while its command runs wait for that one run, so concurrent
 * first uses run it once and share its value or its failure. A failure is not kept: the next call
 * runs the command again. Only masking ({@link #forMasking}) holds back from a command that failed
 * less than {@code cacheSeconds} ago, so a broken command does not cost its timeout on every journal
 * row. Keyed by credential name and source, so the stores one gateway process builds share it.
 * Thread-safe.
 */
final class CommandCache {
    /** The one cache of this process: every store built from any config shares it. */
    static final CommandCache PROCESS = new CommandCache(System::nanoTime, new CredentialCommand(System::getenv)::run);

    /** Runs a command once (a {@link CredentialCommand} outside tests). */
    @FunctionalInterface
    interface Runner {
        Secret run(CredentialRef ref, CredentialSource.Command source) throws CredentialCommand.Failed;
    }

    private record Key(CredentialRef ref, CredentialSource.Command source) {
    }

    private final LongSupplier nanoClock;
    private final Runner runner;
    private final Map<Key, Entry> entries = new ConcurrentHashMap<>();

    CommandCache(LongSupplier nanoClock, Runner runner) {
        this.nanoClock = nanoClock;
        this.runner = runner;
    }

    /** The credential's value for a call: the kept one while it is fresh, else a run's (waiting for one under way). */
    Secret get(CredentialRef ref, CredentialSource.Command source) throws CredentialUnavailableException {
        return entry(ref, source).get(false).orElseThrow();
    }

    /**
     * The value to mask with: as {@link #get}, but empty (nothing run) when its last run failed
     * within {@code cacheSeconds}, and empty on failure.
     */
    Optional<Secret> forMasking(CredentialRef ref, CredentialSource.Command source) {
        try {
            return entry(ref, source).get(true);
        } catch (CredentialUnavailableException e) {
            return Optional.empty();
        }
    }

    private Entry entry(CredentialRef ref, CredentialSource.Command source) {
        return entries.computeIfAbsent(new Key(ref, source), k -> new Entry(k.ref(), k.source()));
    }

    /** One credential's kept value, its expiry, the run under way and when the last run failed. */
    private final class Entry {
        private final CredentialRef ref;
        private final CredentialSource.Command source;
        private Secret value;
        private long expiresAt;
        private boolean lastFailed;
        private long failedAt;
        private CompletableFuture<Secret> running;

        Entry(CredentialRef ref, CredentialSource.Command source) {
            this.ref = ref;
            this.source = source;
        }

        Optional<Secret> get(boolean forMasking) throws CredentialUnavailableException {
            CompletableFuture<Secret> run;
            boolean mine = false;
            synchronized (this) {
                long now = nanoClock.getAsLong();
                if (value != null && now - expiresAt < 0) {
                    return Optional.of(value);
                }
                value = null;
                if (forMasking && lastFailed && now - failedAt < source.cacheFor().toNanos()) {
                    return Optional.empty();
                }
                if (running == null) {
                    running = new CompletableFuture<>();
                    mine = true;
                }
                run = running;
            }
            if (mine) {
                runOnce(run);
            }
            try {
                return Optional.of(run.get());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof CredentialUnavailableException u) {
                    throw new CredentialUnavailableException(u.getMessage(), u.detail());
                }
                throw new CredentialUnavailableException("credential " + ref + ": its command failed",
                        "credential " + ref + ": command " + source.program() + " failed (" + e.getCause().getClass().getSimpleName() + ')');
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CredentialUnavailableException("credential " + ref + ": interrupted while waiting for its command",
                        "credential " + ref + ": interrupted while waiting for command " + source.program());
            }
        }

        private void runOnce(CompletableFuture<Secret> run) {
            try {
                Secret secret = runner.run(ref, source);
                synchronized (this) {
                    value = secret;
                    expiresAt = nanoClock.getAsLong() + source.cacheFor().toNanos();
                    lastFailed = false;
                    running = null;
                }
                run.complete(secret);
            } catch (CredentialCommand.Failed | RuntimeException e) {
                synchronized (this) {
                    lastFailed = true;
                    failedAt = nanoClock.getAsLong();
                    running = null;
                }
                run.completeExceptionally(e instanceof CredentialCommand.Failed f ? f.unavailable() : e);
            }
        }
    }
}
