package dev.postern.app.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** Where a named credential's value comes from: an environment variable, a file or a command's output. */
public sealed interface CredentialSource {

    record Env(String variable) implements CredentialSource {
        public Env {
            Objects.requireNonNull(variable, "variable");
        }

        /**
         * The variable's name as a message may show it (to the agent in a tool error, to the
         * operator in a finding): only an upper-case name, since a token pasted where the name
         * belongs ({@code ghp_…}) also matches the schema's name pattern.
         */
        public String shownName() {
            return variable.matches("[A-Z_][A-Z0-9_]{0,63}") ? variable
                    : "named in the config (not shown: not an upper-case name, so perhaps a secret pasted there)";
        }
    }

    record File(Path path) implements CredentialSource {
        public File {
            Objects.requireNonNull(path, "path");
        }
    }

    /**
     * An argv run without a shell whose standard output is the secret: its program an absolute path
     * or a bare name looked up on {@code PATH} when it runs, killed with its descendants after
     * {@code timeout}, its value used for at most {@code cacheFor} before it is run again.
     */
    record Command(List<String> argv, Duration timeout, Duration cacheFor) implements CredentialSource {
        /** The longest {@code timeoutMs} the schema allows: ten minutes. */
        public static final long MAX_TIMEOUT_MS = 600_000;
        /** The longest {@code cacheSeconds} the schema allows: a day. */
        public static final long MAX_CACHE_SECONDS = 86_400;
        /**
         * The variables of the gateway's environment the command sees (when set), and no others: what
         * {@code pass}/{@code gpg} ({@code GNUPGHOME}, {@code PASSWORD_STORE_DIR}), {@code secret-tool}
         * (the session bus) and {@code vault} (its address and CA, never a token) need to find their
         * store. The gateway's other variables (an {@code env} credential among them) are withheld.
         */
        public static final List<String> INHERITED_ENV = List.of("HOME", "LOGNAME", "USER", "PATH", "LANG", "TMPDIR",
                "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "DBUS_SESSION_BUS_ADDRESS",
                "GNUPGHOME", "PASSWORD_STORE_DIR", "VAULT_ADDR", "VAULT_CACERT", "VAULT_NAMESPACE");

        public Command {
            argv = List.copyOf(Objects.requireNonNull(argv, "argv"));
            Objects.requireNonNull(timeout, "timeout");
            Objects.requireNonNull(cacheFor, "cacheFor");
            if (argv.isEmpty() || argv.get(0).isEmpty()) {
                throw new IllegalArgumentException("a command needs a program: its first element is empty or missing");
            }
            if (argv.stream().anyMatch(a -> a.indexOf('\0') >= 0)) {
                throw new IllegalArgumentException("a command's arguments cannot hold a NUL character");
            }
            String program = argv.get(0);
            if (program.contains("/") && !program.startsWith("/")) {
                throw new IllegalArgumentException("the program is an absolute path or a bare name found on PATH, not a relative path");
            }
            if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(Duration.ofMillis(MAX_TIMEOUT_MS)) > 0) {
                throw new IllegalArgumentException("timeoutMs is 1.." + MAX_TIMEOUT_MS + ", got " + timeout.toMillis());
            }
            if (cacheFor.compareTo(Duration.ofSeconds(1)) < 0 || cacheFor.compareTo(Duration.ofSeconds(MAX_CACHE_SECONDS)) > 0) {
                throw new IllegalArgumentException("cacheSeconds is 1.." + MAX_CACHE_SECONDS + ", got " + cacheFor.toSeconds());
            }
        }

        /** The program as the config names it (an absolute path or a bare name): what messages may show, never an argument. */
        public String program() {
            return argv.get(0);
        }
    }
}
