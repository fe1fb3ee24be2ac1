package dev.postern.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guard's logic with the process's globals replaced by files, so the test JVM's own stdout is
 * never claimed. {@link StdoutGuard#claimProtocolStream()} itself (once per process, the real
 * descriptors) is proven by the app's process tests against the packaged launcher.
 */
class StdoutGuardTest {
    @TempDir
    Path dir;

    @Test
    void withoutAPrivateDescriptorTheProtocolGoesToStdoutAndSystemOutToStderr() throws IOException {
        Path stdout = dir.resolve("stdout");
        Path stderr = dir.resolve("stderr");
        AtomicReference<PrintStream> redirected = new AtomicReference<>();
        try (FileOutputStream stdoutFile = new FileOutputStream(stdout.toFile());
             FileOutputStream stderrFile = new FileOutputStream(stderr.toFile())) {
            OutputStream protocol = StdoutGuard.claim(null, stdoutFile.getFD(), stderrFile.getFD(),
                    StdoutGuard.FD_DIRECTORIES, redirected::set);
            protocol.write("{}\n".getBytes(StandardCharsets.UTF_8));
            assertNotNull(redirected.get());
            redirected.get().println("stray");
        }
        assertEquals("{}\n", Files.readString(stdout));
        assertEquals("stray" + System.lineSeparator(), Files.readString(stderr));
    }

    @Test
    void privateDescriptorIsOpenedFromTheFirstDirectoryThatHasItAndAppendedTo() throws IOException {
        Path missing = dir.resolve("no-such-fd-dir");
        Path fds = Files.createDirectory(dir.resolve("fd"));
        Path three = Files.writeString(fds.resolve("3"), "earlier\n");
        Path stdout = dir.resolve("stdout");
        Path stderr = dir.resolve("stderr");
        AtomicReference<PrintStream> redirected = new AtomicReference<>();
        try (FileOutputStream stdoutFile = new FileOutputStream(stdout.toFile());
             FileOutputStream stderrFile = new FileOutputStream(stderr.toFile());
             OutputStream protocol = StdoutGuard.claim("3", stdoutFile.getFD(), stderrFile.getFD(),
                     List.of(missing, fds), redirected::set)) {
            protocol.write("{}\n".getBytes(StandardCharsets.UTF_8));
            redirected.get().print("stray");
            redirected.get().flush();
        }
        assertEquals("earlier\n{}\n", Files.readString(three));
        assertEquals("", Files.readString(stdout));
        assertEquals("stray", Files.readString(stderr));
    }

    @Test
    void privateDescriptorIsReachedThroughProcSelfFd() throws IOException {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs Linux /proc");
        Path target = dir.resolve("protocol");
        try (FileOutputStream opened = new FileOutputStream(target.toFile())) {
            int fd = descriptorOf(target);
            try (OutputStream protocol = StdoutGuard.claim(Integer.toString(fd), FileDescriptor.out,
                    FileDescriptor.err, StdoutGuard.FD_DIRECTORIES, ignored -> { })) {
                protocol.write("{\"via\":\"proc\"}\n".getBytes(StandardCharsets.UTF_8));
            }
            assertNotNull(opened.getFD());
        }
        assertEquals("{\"via\":\"proc\"}\n", Files.readString(target));
    }

    private static int descriptorOf(Path file) throws IOException {
        Path real = file.toRealPath();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(p -> {
                try {
                    return Files.readSymbolicLink(p).equals(real);
                } catch (IOException | UnsupportedOperationException e) {
                    return false;
                }
            }).mapToInt(p -> Integer.parseInt(p.getFileName().toString())).findFirst()
                    .orElseThrow(() -> new AssertionError("no descriptor of " + real + " in /proc/self/fd"));
        }
    }

    @Test
    void descriptorThatCannotBeOpenedFailsNamingThePropertyAndPlaces() {
        List<Path> dirs = List.of(dir.resolve("a"), dir.resolve("b"));
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> StdoutGuard.claim("7",
                FileDescriptor.out, FileDescriptor.err, dirs, ignored -> { }));
        assertTrue(e.getMessage().contains(StdoutGuard.PROTOCOL_FD_PROPERTY), e.getMessage());
        assertTrue(e.getMessage().contains(dir.resolve("b").toString()), e.getMessage());
        assertEquals(1, e.getCause().getSuppressed().length);
    }

    @Test
    void systemOutIsRedirectedEvenWhenTheDescriptorCannotBeOpened() {
        AtomicReference<PrintStream> redirected = new AtomicReference<>();
        assertThrows(UncheckedIOException.class, () -> StdoutGuard.claim("7", FileDescriptor.out,
                FileDescriptor.err, List.of(dir.resolve("none")), redirected::set));
        assertNotNull(redirected.get());
    }

    @Test
    void descriptorPropertyMustNameAPrivateDescriptor() {
        for (String bad : new String[] {"", "three", " 3", "-1", "0", "1", "2", "3.0"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StdoutGuard.parseDescriptor(bad), bad);
            assertTrue(e.getMessage().contains(StdoutGuard.PROTOCOL_FD_PROPERTY), e.getMessage());
        }
        assertEquals(3, StdoutGuard.parseDescriptor("3"));
        assertEquals(42, StdoutGuard.parseDescriptor("42"));
    }
}
