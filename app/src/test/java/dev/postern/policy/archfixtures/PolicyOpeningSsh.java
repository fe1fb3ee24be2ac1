package dev.postern.policy.archfixtures;

import org.apache.sshd.client.SshClient;

/** Violation: the kernel knowing the SSH adapter's library. Never run. */
public final class PolicyOpeningSsh {
    private PolicyOpeningSsh() {
    }

    static SshClient client() {
        return SshClient.setUpDefaultClient();
    }
}
