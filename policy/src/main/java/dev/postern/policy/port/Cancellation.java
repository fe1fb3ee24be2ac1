package dev.postern.policy.port;

import java.util.ArrayList;
import java.util.List;

/**
 * A one-shot cancellation signal from the session to an executor, and the call's way back to the
 * client while it runs (progress, for an executor that has any to report) and on to telemetry (the
 * call's {@link CallTrace}, for an executor whose effect is a request to another service). Listeners registered after
 * the signal fired run at once, on the registering thread; each listener runs at most once. Thread-safe.
 */
public final class Cancellation {
    private final List<Runnable> listeners = new ArrayList<>();
    private final ProgressSink progress;
    private final CallTrace trace;
    private boolean cancelled;

    /** A signal for a call whose client asked for no progress. */
    public Cancellation() {
        this(ProgressSink.NONE);
    }

    /** A signal for a call whose progress goes to {@code progress}. */
    public Cancellation(ProgressSink progress) {
        this(progress, CallTrace.NONE);
    }

    /** A signal for a call whose progress goes to {@code progress} and whose outbound requests are traced by {@code trace}. */
    public Cancellation(ProgressSink progress, CallTrace trace) {
        this.progress = java.util.Objects.requireNonNull(progress, "progress");
        this.trace = java.util.Objects.requireNonNull(trace, "trace");
    }

    /** Where the call's outbound requests are traced; {@link CallTrace#NONE} with telemetry off. */
    public CallTrace trace() {
        return trace;
    }

    /** Where the call's progress goes; {@link ProgressSink#NONE} when the client gave no progress token. */
    public ProgressSink progress() {
        return progress;
    }

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
