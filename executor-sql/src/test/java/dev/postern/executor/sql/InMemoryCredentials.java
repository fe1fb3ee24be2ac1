package dev.postern.executor.sql;

import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A credential store held in a map, for tests. Thread-safe. */
final class InMemoryCredentials implements CredentialStore {
    private final Map<String, Secret> secrets = new ConcurrentHashMap<>();

    InMemoryCredentials put(String name, String value) {
        secrets.put(name, Secret.of(value));
        return this;
    }

    @Override
    public Secret resolve(CredentialRef ref) throws CredentialUnavailableException {
        Secret secret = secrets.get(ref.name());
        if (secret == null) {
            throw new CredentialUnavailableException("credential " + ref + " is not set");
        }
        return secret;
    }

    @Override
    public Set<Secret> all() {
        return Set.copyOf(secrets.values());
    }
}
