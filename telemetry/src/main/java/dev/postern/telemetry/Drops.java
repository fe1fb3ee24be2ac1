package dev.postern.telemetry;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts what was held for export and never sent, and says so on stderr the first time only (a
 * collector that is down would otherwise fill stderr). Thread-safe.
 */
final class Drops {
    private final AtomicLong count = new AtomicLong();
    private final AtomicBoolean warned = new AtomicBoolean();
    private final PrintStream diagnostics;
    private final String endpoint;

    Drops(PrintStream diagnostics, String endpoint) {
        this.diagnostics = diagnostics;
        this.endpoint = endpoint;
    }

    /** {@code n} records of {@code signal} were dropped because {@code why}. */
    void add(String signal, int n, String why) {
        if (n <= 0) {
            return;
        }
        count.addAndGet(n);
        if (warned.compareAndSet(false, true)) {
            diagnostics.println("postern: telemetry: " + signal + " not delivered to " + endpoint + " (" + why
                    + "); what cannot be sent is dropped and counted, calls are not affected (said once)");
        }
    }

    long count() {
        return count.get();
    }
}
