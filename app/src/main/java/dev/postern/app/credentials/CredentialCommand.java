package dev.postern.app.credentials;

import dev.postern.app.config.CredentialSource;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * Runs a {@code command} credential once and returns its standard output as the secret: no shell,
 * stdin closed, only {@link CredentialSource.Command#INHERITED_ENV} of the gateway's environment,
 * stdout read up to {@value #MAX_OUTPUT_BYTES} bytes with one trailing line end stripped, stderr
 * counted and discarded (a command's stderr may echo the secret, so no part of it is kept), and past
 * the timeout the command and every process it started are killed. A failure names the credential
 * and the program, never an argument and never a byte of either stream. Thread-safe.
 */
public final class CredentialCommand {
    /** The most a command may print: a larger output fails rather than be cut. */
    public static final int MAX_OUTPUT_BYTES = 64 * 1024;

    private final UnaryOperator<String> environment;

    /** With {@code environment} the gateway's variables (the command sees only the inherited ones). */
    public CredentialCommand(UnaryOperator<String> environment) {
        this.environment = Objects.requireNonNull(environment, "environment");
    }

    /** Why a command gave no secret, in the three ways {@code check-config --deep} tells apart. */
    public enum Reason { NOT_FOUND, FAILED, TIMED_OUT }

    /** A command that gave no secret: the agent's words, the operator's detail and the reason; neither holds output. */
    public static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;
        private final Reason reason;
        private final String detail;

        Failed(Reason reason, String message, String detail) {
            super(message);
            this.reason = reason;
            this.detail = detail;
        }

        public Reason reason() {
            return reason;
        }

        /** What the operator is told: the program and what went wrong, never output. */
        public String detail() {
            return detail;
        }

        /** As the store reports it to the executor that needed the credential. */
        public CredentialUnavailableException unavailable() {
            return new CredentialUnavailableException(getMessage(), detail);
        }
    }

    /** The executable file a program names: absolute as it is, a bare name looked up on the gateway's {@code PATH}. */
    public Optional<Path> program(String name) {
        if (name.startsWith("/")) {
            Path p = Path.of(name);
            return Files.isRegularFile(p) && Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = Optional.ofNullable(environment.apply("PATH")).orElse("");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    /** Runs {@code source} for {@code ref} and returns what it printed, or says why not. */
    public Secret run(CredentialRef ref, CredentialSource.Command source) throws Failed {
        String named = "credential " + ref + ": command " + source.program();
        Path program = program(source.program()).orElseThrow(() -> new Failed(Reason.NOT_FOUND,
                "credential " + ref + ": its command cannot be run",
                named + (source.program().startsWith("/") ? " is not an executable file" : " is not found on PATH")));
        List<String> argv = new ArrayList<>(source.argv());
        argv.set(0, program.toString());
        ProcessBuilder builder = new ProcessBuilder(argv);
        Map<String, String> env = builder.environment();
        env.clear();
        for (String name : CredentialSource.Command.INHERITED_ENV) {
            String value = environment.apply(name);
            if (value != null) {
                env.put(name, value);
            }
        }
        long deadline = System.nanoTime() + source.timeout().toNanos();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new Failed(Reason.NOT_FOUND, "credential " + ref + ": its command cannot be run",
                    named + " cannot be started (" + e.getClass().getSimpleName() + ')');
        }
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // Already gone: what it printed still decides.
        }
        CompletableFuture<Output> stdout = read(process.getInputStream(), MAX_OUTPUT_BYTES, true, ref + "-stdout");
        CompletableFuture<Output> stderr = read(process.getErrorStream(), 0, false, ref + "-stderr");
        try {
            Output out;
            try {
                out = stdout.get(remaining(deadline), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                killTree(process);
                throw new Failed(Reason.TIMED_OUT, "credential " + ref + ": its command did not finish in time",
                        named + " did not finish within " + source.timeout().toMillis() + " ms and was killed"
                                + " (with every process it started)");
            }
            if (out.overflowed()) {
                killTree(process);
                out.wipe();
                throw new Failed(Reason.FAILED, "credential " + ref + ": its command failed",
                        named + " printed more than " + MAX_OUTPUT_BYTES + " bytes, so it was stopped and its output dropped");
            }
            if (!process.waitFor(remaining(deadline), TimeUnit.NANOSECONDS)) {
                killTree(process);
                out.wipe();
                throw new Failed(Reason.TIMED_OUT, "credential " + ref + ": its command did not finish in time",
                        named + " closed its output but did not exit within " + source.timeout().toMillis() + " ms and was killed");
            }
            int status = process.exitValue();
            String errors = stderrSaid(stderr, deadline);
            if (status != 0) {
                out.wipe();
                throw new Failed(Reason.FAILED, "credential " + ref + ": its command failed",
                        named + " exited with status " + status + errors);
            }
            byte[] value = out.withoutLineEnd();
            out.wipe();
            if (value.length == 0) {
                throw new Failed(Reason.FAILED, "credential " + ref + ": its command printed nothing",
                        named + " exited 0 but printed nothing on stdout" + errors);
            }
            Secret secret = new Secret(value);
            Arrays.fill(value, (byte) 0);
            return secret;
        } catch (InterruptedException e) {
            killTree(process);
            Thread.currentThread().interrupt();
            throw new Failed(Reason.FAILED, "credential " + ref + ": interrupted while its command ran",
                    named + " was killed: the call that needed it was interrupted");
        } catch (ExecutionException e) {
            killTree(process);
            throw new Failed(Reason.FAILED, "credential " + ref + ": its command failed",
                    named + ": its output could not be read (" + e.getCause().getClass().getSimpleName() + ')');
        }
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }

    /** " (it wrote N bytes to stderr, not shown ...)" when it wrote any: never the bytes themselves. */
    private static String stderrSaid(CompletableFuture<Output> stderr, long deadline) throws InterruptedException {
        try {
            long bytes = stderr.get(Math.max(remaining(deadline), TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS).total();
            return bytes == 0 ? "" : " (it wrote " + bytes + " bytes to stderr, not shown since they may hold the secret;"
                    + " run the command yourself to read them)";
        } catch (ExecutionException | TimeoutException e) {
            return " (its stderr was not read to the end; not shown)";
        }
    }

    /** SIGKILL to the command and to every descendant it has now (looked up first, while they are still its descendants). */
    private static void killTree(Process process) {
        List<ProcessHandle> descendants = process.descendants().toList();
        process.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    /** What a stream gave: up to {@code keep} bytes (when kept), the total count, whether it passed {@code keep}. */
    private record Output(ByteArrayOutputStream bytes, long total, boolean overflowed) {
        byte[] withoutLineEnd() {
            byte[] all = bytes.toByteArray();
            int end = all.length;
            if (end > 0 && all[end - 1] == '\n') {
                end--;
                if (end > 0 && all[end - 1] == '\r') {
                    end--;
                }
            }
            byte[] value = Arrays.copyOf(all, end);
            Arrays.fill(all, (byte) 0);
            return value;
        }

        /** Overwrites the buffer's bytes (the copy {@code toByteArray} hands out is wiped by its caller). */
        void wipe() {
            byte[] zeros = new byte[bytes.size()];
            bytes.reset();
            bytes.write(zeros, 0, zeros.length);
            bytes.reset();
        }
    }

    /**
     * Reads {@code in} to its end on a daemon thread: keeps up to {@code keep} bytes when {@code keeping},
     * and stops at the first byte past them (the caller then kills the command); else counts and drops.
     */
    private static CompletableFuture<Output> read(InputStream in, int keep, boolean keeping, String name) {
        CompletableFuture<Output> result = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            ByteArrayOutputStream kept = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            long total = 0;
            try (in) {
                for (int n; (n = in.read(buffer)) >= 0;) {
                    total += n;
                    if (keeping) {
                        if (total > keep) {
                            Arrays.fill(buffer, (byte) 0);
                            result.complete(new Output(kept, total, true));
                            return;
                        }
                        kept.write(buffer, 0, n);
                    }
                }
                Arrays.fill(buffer, (byte) 0);
                result.complete(new Output(kept, total, false));
            } catch (IOException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        }, "postern-credential-" + name);
        reader.setDaemon(true);
        reader.start();
        return result;
    }
}
