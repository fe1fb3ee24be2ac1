package dev.postern.transport;

import java.io.FileDescriptor;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The one class allowed to touch {@code System.out} and {@code FileDescriptor.out}: at start-up it
 * claims the protocol stream for the {@link FrameWriter} and points {@code System.out} at stderr, so
 * a stray {@code System.out.println} in any library lands on stderr.
 *
 * <p>With {@code -Dpostern.protocol.fd=N} (the launcher runs {@code exec 3>&1 1>&2} and passes 3)
 * the protocol stream is descriptor N, opened through {@code /proc/self/fd/N} (or {@code /dev/fd/N}),
 * and descriptor 1 already leads to stderr. Without it the protocol stream is descriptor 1 itself.
 *
 * <p>Limits: only {@code System.out} is redirected. Whatever writes to descriptor 1 directly —
 * native code, the JVM's own {@code -Xlog}/{@code -verbose} output, code holding the old
 * {@code System.out} from before the claim — is kept off the protocol stream only by the launcher's
 * descriptor swap; when the jar is started directly, claim first, before other classes load.
 * Thread-safe; claiming twice fails.
 */
public final class StdoutGuard {
    /** The system property naming the private protocol descriptor. */
    public static final String PROTOCOL_FD_PROPERTY = "postern.protocol.fd";

    /** Where a descriptor can be opened by number: Linux first, then the BSDs and macOS. */
    static final List<Path> FD_DIRECTORIES = List.of(Path.of("/proc/self/fd"), Path.of("/dev/fd"));

    private static boolean claimed;

    private StdoutGuard() {
    }

    /**
     * Claims the protocol stream; callable once per process. The stream is unbuffered: the
     * {@link FrameWriter} hands it each line in one write and flushes.
     *
     * @throws IllegalStateException if the stream was claimed before (even if that claim failed)
     * @throws IllegalArgumentException if {@value #PROTOCOL_FD_PROPERTY} is set but is not a
     *         descriptor number of 3 or more
     * @throws UncheckedIOException if that descriptor cannot be opened
     */
    public static synchronized OutputStream claimProtocolStream() {
        if (claimed) {
            throw new IllegalStateException("the protocol stream has already been claimed");
        }
        claimed = true;
        return claim(System.getProperty(PROTOCOL_FD_PROPERTY), FileDescriptor.out, FileDescriptor.err,
                FD_DIRECTORIES, System::setOut);
    }

    /**
     * The claim, with the process's globals passed in: redirects {@code System.out} (through
     * {@code setOut}) to {@code stderr} first, then opens the protocol stream: descriptor
     * {@code protocolFd} under the first of {@code fdDirectories} that has it (for appending, so a
     * file the client redirected to is not truncated), or {@code stdout} when {@code protocolFd}
     * is null.
     */
    static OutputStream claim(String protocolFd, FileDescriptor stdout, FileDescriptor stderr,
            List<Path> fdDirectories, Consumer<PrintStream> setOut) {
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        setOut.accept(new PrintStream(new FileOutputStream(stderr), true, StandardCharsets.UTF_8));
        if (protocolFd == null) {
            return new FileOutputStream(stdout);
        }
        int fd = parseDescriptor(protocolFd);
        FileNotFoundException failure = null;
        for (Path directory : fdDirectories) {
            Path path = directory.resolve(Integer.toString(fd));
            try {
                return new FileOutputStream(path.toFile(), true);
            } catch (FileNotFoundException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        throw new UncheckedIOException("cannot open protocol descriptor " + fd + " named by -D"
                + PROTOCOL_FD_PROPERTY + " under " + fdDirectories, failure == null
                ? new FileNotFoundException("no descriptor directory given") : failure);
    }

    static int parseDescriptor(String value) {
        int fd;
        try {
            fd = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PROTOCOL_FD_PROPERTY + " must be a descriptor number, got \""
                    + value + '"', e);
        }
        if (fd < 3) {
            throw new IllegalArgumentException(PROTOCOL_FD_PROPERTY + " must name a private descriptor (3 or more; "
                    + "0, 1 and 2 are the standard streams), got " + fd);
        }
        return fd;
    }
}
