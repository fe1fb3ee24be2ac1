package dev.postern.app;

import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.port.ToolSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Waits for a tool source's first listings: what {@code upstream pin} and {@code check-config
 * --connect} read, without serving anything. Returns when every allowance has left pending or the
 * wait is over, with what was heard by then (an allowance still pending stays so).
 */
final class UpstreamListings {
    private UpstreamListings() {
    }

    static LiveTools collect(ToolSource source, List<? extends Allowance> allowances, Duration wait) throws InterruptedException {
        AtomicReference<LiveTools> heard = new AtomicReference<>(LiveTools.none());
        Object changed = new Object();
        source.start((allowance, listing) -> {
            heard.updateAndGet(live -> live.with(allowance, listing));
            synchronized (changed) {
                changed.notifyAll();
            }
        });
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (changed) {
            while (allowances.stream().anyMatch(a -> heard.get().of(a) instanceof LiveTools.Listing.Pending)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                changed.wait(Math.max(1, left / 1_000_000));
            }
        }
        return heard.get();
    }
}
