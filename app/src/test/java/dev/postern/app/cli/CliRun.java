package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/** One in-memory run of {@link Cli#run}: captured stdout and stderr, and whether stdin was read. */
final class CliRun {
    final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    final AtomicInteger stdinReads = new AtomicInteger();
    final ExitStatus exit;

    private CliRun(byte[] stdin, String... args) {
        InputStream in = new ByteArrayInputStream(stdin) {
            @Override
            public synchronized int read() {
                stdinReads.incrementAndGet();
                return super.read();
            }

            @Override
            public synchronized int read(byte[] b, int off, int len) {
                stdinReads.incrementAndGet();
                return super.read(b, off, len);
            }
        };
        exit = Cli.run(args, new Io(stdout, in, new PrintStream(stderr, true, StandardCharsets.UTF_8)));
    }

    static CliRun of(String... args) {
        return new CliRun(new byte[0], args);
    }

    static CliRun withStdin(String stdin, String... args) {
        return new CliRun(stdin.getBytes(StandardCharsets.UTF_8), args);
    }

    String out() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout ---\n" + out() + "\n--- stderr ---\n" + err();
    }
}
