package dev.postern.policy.model;

import java.util.Objects;
import java.util.Optional;

/** How the SSH executor authenticates: an OpenSSH private key (maybe with a passphrase) or a password. */
public sealed interface SshAuth {

    record Key(CredentialRef identity, Optional<CredentialRef> passphrase) implements SshAuth {
        public Key {
            Objects.requireNonNull(identity, "identity");
            Objects.requireNonNull(passphrase, "passphrase");
        }
    }

    record Password(CredentialRef password) implements SshAuth {
        public Password {
            Objects.requireNonNull(password, "password");
        }
    }
}
