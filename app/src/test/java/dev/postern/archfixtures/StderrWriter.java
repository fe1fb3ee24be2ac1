package dev.postern.archfixtures;

/** Compliant: diagnostics go to stderr, which every class may use. Never run. */
public final class StderrWriter {
    private StderrWriter() {
    }

    static void warn(String message) {
        System.err.println(message);
    }
}
