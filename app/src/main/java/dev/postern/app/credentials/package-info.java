/**
 * The credential store adapter: secrets from environment variables and owner-only files, behind the
 * kernel's {@link dev.postern.policy.port.CredentialStore} port. Values are read on demand and never
 * logged.
 *
 * <p>Depends on {@code policy} and the config's credential sources only: no JSON library, no
 * protocol, no executor.
 */
package dev.postern.app.credentials;
