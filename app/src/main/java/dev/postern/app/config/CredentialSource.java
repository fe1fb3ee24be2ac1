package dev.postern.app.config;

import java.nio.file.Path;
import java.util.Objects;

/** Where a named credential's value comes from: an environment variable or a file. */
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
}
