/**
 * The credential store adapter: secrets from environment variables, owner-only files and commands'
 * output (run without a shell, kept for a bounded time), behind the kernel's
 * {@link dev.postern.policy.port.CredentialStore} port. Values are read on demand and never logged.
 *
 * <p>Depends on {@code policy} and the config's credential sources only: no JSON library, no
 * protocol, no executor.
 */
package dev.postern.app.credentials;
