package dev.postern.app.cli;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/** The process's streams as a command sees them: stdout is the one the guard claimed. */
public record Io(OutputStream stdout, InputStream stdin, PrintStream stderr) {
    public Io {
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stdin, "stdin");
        Objects.requireNonNull(stderr, "stderr");
    }

    /** A printer over stdout for human-facing reports; never use it in {@code mcp-stdio}. */
    public PrintStream report() {
        return new PrintStream(stdout, true, StandardCharsets.UTF_8);
    }
}
