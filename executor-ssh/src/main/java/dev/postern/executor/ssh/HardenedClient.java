package dev.postern.executor.ssh;

import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.password.PasswordIdentityProvider;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.client.keyverifier.ServerKeyVerifier;
import org.apache.sshd.common.keyprovider.KeyIdentityProvider;
import org.apache.sshd.server.forward.RejectAllForwardingFilter;

/**
 * The one way this module builds a MINA SSH client, for the executor and for the host-key probe
 * alike: the given server-key check, nothing read from {@code ~/.ssh} (config, identities, agent),
 * no default passwords, no interaction and no forwarding. Callers add credentials per session.
 */
final class HardenedClient {
    private HardenedClient() {
    }

    /** A started client whose every server key goes through {@code verifier}; the caller stops it. */
    static SshClient start(ServerKeyVerifier verifier) {
        SshClient client = ClientBuilder.builder()
                .serverKeyVerifier(verifier)
                // Nothing from ~/.ssh/config (identities, proxies, host aliases) may change what a permit says.
                .hostConfigEntryResolver(HostConfigEntryResolver.EMPTY)
                .forwardingFilter(RejectAllForwardingFilter.INSTANCE)
                .build();
        client.setKeyIdentityProvider(KeyIdentityProvider.EMPTY_KEYS_PROVIDER);
        client.setPasswordIdentityProvider(PasswordIdentityProvider.EMPTY_PASSWORDS_PROVIDER);
        client.setAgentFactory(null);
        client.setUserInteraction(null);
        client.start();
        return client;
    }
}
