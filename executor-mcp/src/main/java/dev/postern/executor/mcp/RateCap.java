package dev.postern.executor.mcp;

/**
 * A token bucket over lines: {@link #BURST} at once, then {@link #PER_SECOND} a second; counts what
 * it refused so the caller can say how many lines it did not show. Thread-safe.
 */
final class RateCap {
    static final int PER_SECOND = 20;
    static final int BURST = 200;

    private double tokens = BURST;
    private long refilledAt = System.nanoTime();
    private long refused;

    /** True when one more line may be shown now. */
    synchronized boolean admit() {
        long now = System.nanoTime();
        tokens = Math.min(BURST, tokens + (now - refilledAt) / 1e9 * PER_SECOND);
        refilledAt = now;
        if (tokens < 1) {
            refused++;
            return false;
        }
        tokens -= 1;
        return true;
    }

    /** How many lines were refused since the last call, and resets the count. */
    synchronized long takeRefused() {
        long n = refused;
        refused = 0;
        return n;
    }
}
