package dev.postern.policy.port;

import dev.postern.policy.model.CredentialRef;
import java.util.Set;

/**
 * Resolves credential names to secrets, for executors only. Implementations are thread-safe and
 * never log a value.
 */
public interface CredentialStore {

    Secret resolve(CredentialRef ref) throws CredentialUnavailableException;

    /**
     * Every secret the store can currently resolve, so an executor can mask any of them when a
     * target echoes one back. Unreadable credentials are left out.
     */
    Set<Secret> all();
}
