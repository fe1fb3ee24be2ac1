package dev.postern.policy.model;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The certificates an HTTP target's server must chain to, instead of the JVM's default authorities:
 * an absolute path to a key store file, its format, and optionally the credential that opens it
 * (never an inline password). Only the store's trusted-certificate entries count; host name
 * verification stays on. Immutable.
 */
public record TrustStore(Path file, Type type, Optional<CredentialRef> password) {

    /** The key store formats the JDK reads without extra providers. */
    public enum Type { PKCS12, JKS }

    public TrustStore {
        Objects.requireNonNull(file, "file");
        if (!file.isAbsolute()) {
            throw new IllegalArgumentException("trustStore.file must be an absolute path (resolve it against the config file), got \""
                    + file + '"');
        }
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(password, "password");
    }
}
