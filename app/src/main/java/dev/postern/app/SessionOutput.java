package dev.postern.app;

import dev.postern.transport.FrameWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Objects;

/**
 * A session's side of the protocol stream: every line through one {@link FrameWriter} under one lock,
 * the reader's own answers held and written together, nothing after close, and a failed write turned,
 * once, into a broken output (said on stderr, then {@code onBroken}, run outside the lock). Thread-safe.
 */
final class SessionOutput {
    private final FrameWriter writer;
    private final PrintStream diagnostics;
    private final Runnable onBroken;
    private final Object lock = new Object();
    private boolean closed;
    private boolean broken;

    SessionOutput(FrameWriter writer, PrintStream diagnostics, Runnable onBroken) {
        this.writer = Objects.requireNonNull(writer, "writer");
        this.diagnostics = Objects.requireNonNull(diagnostics, "diagnostics");
        this.onBroken = Objects.requireNonNull(onBroken, "onBroken");
    }

    /** Writes {@code line} now, after the held lines; nothing once closed or broken. */
    void write(String line) {
        output(Objects.requireNonNull(line, "line"), false);
    }

    /**
     * Holds a line the reader answered itself, to go out in one write with the next ones. The reader
     * holds only while at least {@link FrameWriter#MAX_HELD_LINES} more lines are already read, so a
     * batch fills from input at hand (it releases before it waits for input, for a place, or ends; with
     * fewer lines behind it an answer is written at once, with whatever is held), and only once the
     * catalog is ready (so the {@code initialize} answer is never held while a later frame waits for
     * the configuration's check). Saves a system call and a wake-up of the client per line when calls
     * come pipelined; a lone call is written as before.
     */
    void hold(String line) {
        output(Objects.requireNonNull(line, "line"), true);
    }

    /** Writes the held lines, if any. */
    void release() {
        output(null, false);
    }

    /** Writes {@code line} as the last line, then closes; a failed write only marks the output broken. */
    void closeWith(String line) {
        synchronized (lock) {
            if (!closed && !broken) {
                try {
                    writer.write(line);
                } catch (IOException e) {
                    broken = true;
                }
            }
            closed = true;
        }
    }

    /** Writes nothing more (what is still held is dropped: release first to keep it). */
    void close() {
        synchronized (lock) {
            closed = true;
        }
    }

    boolean isBroken() {
        synchronized (lock) {
            return broken;
        }
    }

    /** Writes {@code line} (null: only what is held) or holds it; the writer's failure breaks the output. */
    private void output(String line, boolean holding) {
        boolean justBroke = false;
        synchronized (lock) {
            if (closed || broken) {
                return;
            }
            try {
                if (line == null) {
                    writer.release();
                } else if (holding) {
                    writer.hold(line);
                } else {
                    writer.write(line);
                }
            } catch (IOException e) {
                broken = true;
                justBroke = true;
            }
        }
        if (justBroke) {
            diagnostics.println("postern: protocol output is broken; stopping");
            onBroken.run();
        }
    }
}
