package dev.postern.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The load report: each line goes to stderr as it is measured and, at the end, the whole report to
 * a file. Never to stdout. Not thread-safe; the driver's main thread writes it.
 */
final class Report {
    private final List<String> lines = new ArrayList<>();
    private final PrintStream err;

    Report(PrintStream err) {
        this.err = err;
    }

    void line(String format, Object... args) {
        String l = String.format(Locale.ROOT, format, args);
        lines.add(l);
        err.println(l);
        err.flush();
    }

    /** A table row: a figure's name and its value. */
    void row(String label, String figure, String value) {
        line("%-10s %-40s %s", label, figure, value);
    }

    void writeTo(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.write(file, lines);
    }
}
