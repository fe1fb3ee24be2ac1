package dev.postern.bench;

import java.util.Arrays;

/**
 * Durations in nanoseconds and their order statistics (nearest-rank percentiles). Not thread-safe;
 * fill from one thread.
 */
final class Samples {
    private long[] values;
    private int size;

    Samples(int capacity) {
        values = new long[Math.max(1, capacity)];
    }

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    int size() {
        return size;
    }

    /** The nearest-rank percentile, {@code q} in (0, 1]; 0 when there are no samples. */
    long percentile(double q) {
        if (size == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(q * size);
        return sorted[Math.min(size, Math.max(1, rank)) - 1];
    }

    long median() {
        return percentile(0.5);
    }

    long min() {
        return percentile(Double.MIN_VALUE);
    }

    long max() {
        return percentile(1.0);
    }

    static String micros(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.0f µs", nanos / 1_000.0);
    }

    static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f ms", nanos / 1_000_000.0);
    }
}
