package dev.postern.policy.port;

import java.util.ArrayList;
import java.util.List;

/**
 * A one-shot cancellation signal from the session to an executor. Listeners registered after the
 * signal fired run at once, on the registering thread; each listener runs at most once. Thread-safe.
 */
public final class Cancellation {
    private final List<Runnable> listeners = new ArrayList<>();
    private boolean cancelled;

    /** Fires the signal; later calls do nothing. Listeners run on the calling thread. */
    public void cancel() {
        List<Runnable> toRun;
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            toRun = List.copyOf(listeners);
            listeners.clear();
        }
        toRun.forEach(Runnable::run);
    }

    public synchronized boolean isCancelled() {
        return cancelled;
    }

    /** Runs {@code listener} when the signal fires, or now if it already has. */
    public void onCancel(Runnable listener) {
        synchronized (this) {
            if (!cancelled) {
                listeners.add(listener);
                return;
            }
        }
        listener.run();
    }
}
