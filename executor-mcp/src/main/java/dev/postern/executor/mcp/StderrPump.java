package dev.postern.executor.mcp;

import dev.postern.policy.model.Printable;
import dev.postern.policy.port.SecretMask;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies an upstream's stderr to the gateway's diagnostics, a line at a time, each prefixed with the
 * server's name, masked against its credentials, cut at {@link #MAX_LINE_BYTES} and with control
 * characters shown as {@code ?}. A flood is capped by the server's {@link RateCap} (shared with its
 * log notifications): lines over it are counted and the count is printed once lines flow again. Never writes to stdout. Runs on its own thread until the stream ends.
 */
final class StderrPump implements Runnable {
    static final int MAX_LINE_BYTES = 4096;

    private final InputStream in;
    private final String prefix;
    private final SecretMask mask;
    private final PrintStream diagnostics;
    private final RateCap cap;

    StderrPump(InputStream in, String server, SecretMask mask, PrintStream diagnostics, RateCap cap) {
        this.in = in;
        this.cap = cap;
        this.prefix = "postern: upstream " + server + ": ";
        this.mask = mask;
        this.diagnostics = diagnostics;
    }

    @Override
    public void run() {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        boolean cut = false;
        byte[] chunk = new byte[8192];
        try {
            int n;
            while ((n = in.read(chunk)) >= 0) {
                for (int i = 0; i < n; i++) {
                    byte b = chunk[i];
                    if (b == '\n') {
                        emit(line.toByteArray(), cut);
                        line.reset();
                        cut = false;
                    } else if (line.size() < MAX_LINE_BYTES) {
                        line.write(b);
                    } else {
                        cut = true;
                    }
                }
            }
        } catch (IOException e) {
            // The child's stderr closed under us (the child was stopped): nothing more to copy.
        }
        if (line.size() > 0) {
            emit(line.toByteArray(), cut);
        }
        long refused = cap.takeRefused();
        if (refused > 0) {
            diagnostics.println(prefix + refused + " lines not shown (more than " + RateCap.PER_SECOND + " a second)");
        }
    }

    private void emit(byte[] bytes, boolean cut) {
        if (!cap.admit()) {
            return;
        }
        long refused = cap.takeRefused();
        if (refused > 0) {
            diagnostics.println(prefix + refused + " lines not shown (more than " + RateCap.PER_SECOND + " a second)");
        }
        diagnostics.println(prefix + printable(mask.mask(new String(bytes, StandardCharsets.UTF_8))) + (cut ? " [line cut]" : ""));
    }

    /** The text with control characters (a CR, an escape sequence's ESC) as {@code ?}, so a line cannot rewrite the terminal. */
    static String printable(String text) {
        return Printable.replaced(text);
    }
}
