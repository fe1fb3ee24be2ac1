package dev.postern.app.credentials;

import dev.postern.app.config.CredentialSource;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Resolves credentials lazily from an environment variable or a file, on every use, so a rotated
 * file takes effect without a restart; or from a command's output, kept for its {@code cacheSeconds}
 * ({@link CommandCache}, run by {@link CredentialCommand}). A file must not be readable or writable
 * by group or others (checked where the file system has POSIX permissions). A file's trailing line
 * end is stripped. Messages name the credential and say what is wrong in words; the exception's
 * detail adds the file's path, the variable's name or the command's program for the operator. Neither
 * holds the value, nor any of a command's output. Thread-safe.
 */
public final class EnvironmentAndFileCredentialStore implements CredentialStore {
    private static final Set<PosixFilePermission> TOO_OPEN = Set.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE);
    private static final long MAX_FILE_BYTES = 64 * 1024;

    private final Map<CredentialRef, CredentialSource> sources;
    private final UnaryOperator<String> environment;
    private final CommandCache commands;

    /** The store of a gateway process: commands share this process's {@link CommandCache#PROCESS}. */
    public EnvironmentAndFileCredentialStore(Map<CredentialRef, CredentialSource> sources) {
        this(sources, System::getenv, CommandCache.PROCESS);
    }

    /** With {@code environment} for variables and commands, and a cache of its own. */
    EnvironmentAndFileCredentialStore(Map<CredentialRef, CredentialSource> sources, UnaryOperator<String> environment) {
        this(sources, environment, new CommandCache(System::nanoTime, new CredentialCommand(environment)::run));
    }

    EnvironmentAndFileCredentialStore(Map<CredentialRef, CredentialSource> sources, UnaryOperator<String> environment,
            CommandCache commands) {
        this.sources = Map.copyOf(sources);
        this.environment = environment;
        this.commands = commands;
    }

    @Override
    public Secret resolve(CredentialRef ref) throws CredentialUnavailableException {
        CredentialSource source = sources.get(ref);
        if (source == null) {
            throw new CredentialUnavailableException("credential " + ref + " is not configured");
        }
        if (source instanceof CredentialSource.Env env) {
            String value = environment.apply(env.variable());
            if (value == null || value.isEmpty()) {
                throw new CredentialUnavailableException("credential " + ref + ": its environment variable is not set",
                        "credential " + ref + ": environment variable " + env.shownName() + " is not set");
            }
            return Secret.of(value);
        }
        if (source instanceof CredentialSource.Command command) {
            return commands.get(ref, command);
        }
        Path path = ((CredentialSource.File) source).path();
        try {
            if (Files.getFileStore(path).supportsFileAttributeView("posix")) {
                Set<PosixFilePermission> open = new HashSet<>(Files.getPosixFilePermissions(path));
                open.retainAll(TOO_OPEN);
                if (!open.isEmpty()) {
                    throw new CredentialUnavailableException("credential " + ref
                            + ": its file is readable or writable by group or others, so it is not used",
                            "credential " + ref + ": file " + path + " is readable or writable by group or others (chmod 600 it)");
                }
            }
            if (Files.size(path) > MAX_FILE_BYTES) {
                throw new CredentialUnavailableException("credential " + ref + ": its file is larger than 64 KiB",
                        "credential " + ref + ": file " + path + " is larger than 64 KiB");
            }
            byte[] bytes = Files.readAllBytes(path);
            int end = bytes.length;
            while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
                end--;
            }
            if (end == 0) {
                throw new CredentialUnavailableException("credential " + ref + ": its file is empty",
                        "credential " + ref + ": file " + path + " is empty");
            }
            return new Secret(java.util.Arrays.copyOf(bytes, end));
        } catch (IOException e) {
            throw new CredentialUnavailableException("credential " + ref + ": its file cannot be read",
                    "credential " + ref + ": cannot read " + path + " (" + e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ')');
        }
    }

    @Override
    public Set<Secret> all() {
        Set<Secret> all = new HashSet<>();
        for (CredentialRef ref : sources.keySet()) {
            if (sources.get(ref) instanceof CredentialSource.Command command) {
                commands.forMasking(ref, command).ifPresent(all::add);
                continue;
            }
            try {
                all.add(resolve(ref));
            } catch (CredentialUnavailableException e) {
                // Unreadable credentials cannot be echoed back either; nothing to mask.
            }
        }
        return all;
    }
}
