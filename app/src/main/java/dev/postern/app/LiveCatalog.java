package dev.postern.app;

import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.LiveTools;
import dev.postern.protocol.tools.ToolCatalog;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The session's tool catalog when some tools are known only at run time: the config's catalog, remade
 * whenever a tool source reports a listing. The first call (the first frame after {@code initialize})
 * starts the sources and waits, at most {@code maxWait}, until none of the awaited allowances is
 * pending; later calls never wait. A change of what {@code tools/list} shows runs {@code onChange}.
 * Calls already bound keep the catalog they were bound with. Thread-safe.
 */
final class LiveCatalog implements Supplier<ToolCatalog> {
    private Supplier<ToolCatalog> base; // guarded by this until started
    private final Consumer<BiConsumer<Allowance, LiveTools.Listing>> startSources;
    private final List<? extends Allowance> awaited;
    private final Duration maxWait;
    private volatile Runnable onChange = () -> { };
    private volatile ToolCatalog current;
    private volatile boolean settled;
    private boolean started;

    LiveCatalog(Supplier<ToolCatalog> base, List<? extends Allowance> awaited, Duration maxWait,
            Consumer<BiConsumer<Allowance, LiveTools.Listing>> startSources) {
        this.base = Objects.requireNonNull(base, "base");
        this.awaited = List.copyOf(awaited);
        this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
        this.startSources = Objects.requireNonNull(startSources, "startSources");
    }

    /** What runs when the listed tools change (the session's {@code notifications/tools/list_changed}). */
    void onChange(Runnable action) {
        this.onChange = Objects.requireNonNull(action, "action");
    }

    @Override
    public ToolCatalog get() {
        if (settled) {
            return current;
        }
        synchronized (this) {
            if (!started) {
                ToolCatalog first = base.get(); // may throw (an invalid config): then nothing is started
                current = first;
                started = true;
                if (awaited.isEmpty()) {
                    settled = true;
                    return first;
                }
                startSources.accept(this::heard);
            }
            long deadline = System.nanoTime() + maxWait.toNanos();
            while (!settled && anyPending()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            settled = true;
            return current;
        }
    }

    /**
     * The catalog of a reloaded config from now on, with what the run-time sources have listed so far
     * (a reload never changes which sources there are); runs {@code onChange} when what {@code tools/list}
     * shows changed and the first frame has been served. Calls already bound keep their catalog.
     */
    void replace(ToolCatalog fresh) {
        Objects.requireNonNull(fresh, "fresh");
        boolean announce;
        synchronized (this) {
            if (!started) {
                base = () -> fresh;
                return;
            }
            ToolCatalog before = current;
            ToolCatalog after = fresh.withLive(before.live());
            current = after;
            announce = settled && !before.describeAll().equals(after.describeAll());
            notifyAll();
        }
        if (announce) {
            onChange.run();
        }
    }

    private boolean anyPending() {
        LiveTools live = current.live();
        return awaited.stream().anyMatch(a -> live.of(a) instanceof LiveTools.Listing.Pending);
    }

    private void heard(Allowance allowance, LiveTools.Listing listing) {
        boolean announce;
        synchronized (this) {
            ToolCatalog before = current;
            ToolCatalog after = before.withLive(before.live().with(allowance, listing));
            current = after;
            // Read under the lock: a change made before the first frame settled is in that frame's
            // catalog already, so announcing it would tell the client of a change it never saw.
            announce = settled && !before.describeAll().equals(after.describeAll());
            notifyAll();
        }
        if (announce) {
            onChange.run();
        }
    }
}
