package dev.postern.executor.http;

import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.util.Map;
import java.util.Set;

/** A credential store over a fixed map, for tests. Immutable. */
final class InMemoryCredentials implements CredentialStore {
    private final Map<String, Secret> secrets;

    InMemoryCredentials(Map<String, String> secrets) {
        this.secrets = Map.copyOf(secrets.entrySet().stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> Secret.of(e.getValue()))));
    }

    static InMemoryCredentials none() {
        return new InMemoryCredentials(Map.of());
    }

    @Override
    public Secret resolve(CredentialRef ref) throws CredentialUnavailableException {
        Secret s = secrets.get(ref.name());
        if (s == null) {
            throw new CredentialUnavailableException("credential " + ref.name() + " is not set");
        }
        return s;
    }

    @Override
    public Set<Secret> all() {
        return Set.copyOf(secrets.values());
    }
}
