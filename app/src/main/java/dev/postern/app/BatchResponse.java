package dev.postern.app;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Collects the response lines of one JSON-RPC batch and writes them as one array line when the
 * last expected part has answered (a suppressed part, {@code null}, counts as answered and adds
 * nothing). Writes nothing if no part produced a line. Thread-safe.
 */
final class BatchResponse implements StdioSession.Answer {
    private final List<String> lines = new ArrayList<>();
    private final Consumer<String> out;
    private int pending;

    BatchResponse(int expected, Consumer<String> out) {
        this.pending = expected;
        this.out = out;
    }

    @Override
    public void accept(String lineOrNull) {
        String array = null;
        synchronized (this) {
            if (lineOrNull != null) {
                lines.add(lineOrNull);
            }
            pending--;
            if (pending == 0 && !lines.isEmpty()) {
                array = "[" + String.join(",", lines) + "]";
            }
        }
        if (array != null) {
            out.accept(array);
        }
    }
}
