package dev.postern.app.config;

import java.nio.file.Path;
import java.util.Objects;

/** Where a named credential's value comes from: an environment variable or a file. */
public sealed interface CredentialSource {

    record Env(String variable) implements CredentialSource {
        public Env {
            Objects.requireNonNull(variable, "variable");
        }
    }

    record File(Path path) implements CredentialSource {
        public File {
            Objects.requireNonNull(path, "path");
        }
    }
}
