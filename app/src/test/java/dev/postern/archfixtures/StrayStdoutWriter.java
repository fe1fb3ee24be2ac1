package dev.postern.archfixtures;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;

/** Violation: touches the protocol stream in each of the three forbidden ways. Never run. */
public final class StrayStdoutWriter {
    private StrayStdoutWriter() {
    }

    static void printsDirectly(String line) {
        System.out.println(line);
    }

    static FileOutputStream claimsTheDescriptor() {
        return new FileOutputStream(FileDescriptor.out);
    }

    static void redirects(PrintStream stream) {
        System.setOut(stream);
    }
}
