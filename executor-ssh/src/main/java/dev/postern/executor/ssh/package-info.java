/**
 * The {@code ssh_exec} adapter: {@link dev.postern.executor.ssh.SshActionExecutor} runs one
 * {@link dev.postern.policy.AuthorizedSshCommand} on Apache MINA SSHD's client and reports an
 * {@link dev.postern.policy.outcome.SshExitOutcome} or an
 * {@link dev.postern.policy.outcome.ExecutionFailure} with a stable code. Authenticated sessions are
 * pooled per host and trust rule ({@code SessionPool}, {@code SessionKey}), bounded, closed when idle,
 * and dropped after any call that did not end cleanly.
 *
 * <p>What it does not do, on purpose: trust a host key that is neither in the host's known_hosts
 * file nor its pinned fingerprint (it never adds or updates an entry), read {@code ~/.ssh} (config,
 * identities, agent), forward agents, ports or X11, pass environment variables, allocate a PTY, or
 * open anything but an exec channel. The command line it sends is the permit's, verbatim; quoting is
 * the kernel's job. {@link dev.postern.executor.ssh.SshActionExecutor#probeHostKey}, behind {@code postern trust-host},
 * reads a server's offered key and answers "no" to it. {@code SshActionExecutor} is the one public
 * class ({@code ArchitectureRules.AN_EXECUTOR_MODULE_HAS_EXACTLY_ONE_PUBLIC_CLASS}); the rest is
 * implementation, and every MINA client it starts comes from {@code HardenedClient}.
 *
 * <p>Depends on {@code policy} and {@code sshd-core} only: never on Jackson, {@code protocol} or
 * {@code transport}, and never on one of MINA's accept-all verifiers or authenticators.
 */
package dev.postern.executor.ssh;
