package dev.postern.bench;

import dev.postern.fixtures.GatewayProcess;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The load driver's side of one spawned stdio server (started by test-fixtures' {@link GatewayProcess}):
 * lines written to its stdin, response lines read from its stdout on the caller's thread (no hand-off,
 * so round trips are not inflated), its stderr appended to a log file, and its memory read from
 * {@code /proc/PID/status}. One thread writes and one thread reads at a time.
 */
final class StdioClient implements AutoCloseable {
    private final GatewayProcess process;
    private final OutputStream stdin;
    private final InputStream stdout;
    private final byte[] buffer = new byte[1 << 16];
    private int pos;
    private int end;
    private byte[] line = new byte[1 << 12];
    private int lineLength;

    private StdioClient(GatewayProcess process) {
        this.process = process;
        this.stdin = new BufferedOutputStream(process.stdin(), 1 << 16);
        this.stdout = process.stdout();
    }

    static StdioClient start(List<String> command, Path workingDir, Path stderrLog) throws IOException {
        return new StdioClient(GatewayProcess.start(command, workingDir, Map.of(),
                ProcessBuilder.Redirect.appendTo(stderrLog.toFile())));
    }

    long pid() {
        return process.pid();
    }

    /** The process's command name as the kernel knows it ({@code java} once the launcher has exec'd). */
    String comm() {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid()), "comm")).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    /** Writes one line and flushes it. */
    void send(String text) throws IOException {
        write(text);
        flush();
    }

    /** Writes one line without flushing, for pipelining. */
    void write(String text) throws IOException {
        stdin.write(text.getBytes(StandardCharsets.UTF_8));
        stdin.write('\n');
    }

    void writeRaw(byte[] bytes, int offset, int length) throws IOException {
        stdin.write(bytes, offset, length);
    }

    void flush() throws IOException {
        stdin.flush();
    }

    void closeInput() {
        try {
            stdin.close();
        } catch (IOException e) {
            // The server may already have closed its end; nothing more to say to it.
        }
    }

    /** Blocks for the next response line; EOFException when the server's stdout ends. */
    ResponseLine read() throws IOException {
        readLine();
        return ResponseLine.parse(line, 0, lineLength);
    }

    /** The last line read, whole, as text. */
    String lineText() {
        return new String(line, 0, lineLength, StandardCharsets.UTF_8);
    }

    /** The last line read, as text, for diagnostics. */
    String lastLine() {
        return new String(line, 0, Math.min(lineLength, 300), StandardCharsets.UTF_8);
    }

    private void readLine() throws IOException {
        lineLength = 0;
        while (true) {
            if (pos == end) {
                end = stdout.read(buffer, 0, buffer.length);
                pos = 0;
                if (end < 0) {
                    end = 0;
                    throw new EOFException("the server closed its stdout");
                }
            }
            int start = pos;
            while (pos < end && buffer[pos] != '\n') {
                pos++;
            }
            append(start, pos - start);
            if (pos < end) {
                pos++;
                return;
            }
        }
    }

    private void append(int from, int length) {
        if (lineLength + length > line.length) {
            line = Arrays.copyOf(line, Math.max(line.length * 2, lineLength + length));
        }
        System.arraycopy(buffer, from, line, lineLength, length);
        lineLength += length;
    }

    /** A {@code /proc/PID/status} field in kB (VmRSS, VmHWM), empty once the process is gone. */
    OptionalLong statusKb(String field) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid()), "status"))) {
                if (l.startsWith(field + ":")) {
                    return OptionalLong.of(Long.parseLong(l.substring(field.length() + 1).replace("kB", "").trim()));
                }
            }
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Exit status, waiting at most {@code seconds}; -1 if it is still running. */
    int awaitExit(long seconds) throws InterruptedException {
        return process.awaitExit(Duration.ofSeconds(seconds)).orElse(-1);
    }

    void kill() {
        process.close();
    }

    /** Closes stdin (a clean end of input), waits up to 10 s for the exit, then kills. */
    @Override
    public void close() throws InterruptedException {
        closeInput();
        if (process.awaitExit(Duration.ofSeconds(10)).isEmpty()) {
            process.close();
        }
    }
}
