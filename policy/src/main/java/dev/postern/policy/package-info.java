/**
 * The kernel of Postern: it decides, and nothing else. {@link dev.postern.policy.PolicyEngine} turns
 * a typed {@link dev.postern.policy.action.Action} into a {@link dev.postern.policy.Decision}; its
 * {@code Permit} arm carries the only {@link dev.postern.policy.AuthorizedAction} anyone can hold.
 *
 * <p>Depends on the JDK only: no JSON library, no adapter library (HTTP, SSH, JDBC), no other Postern
 * module.
 * Nothing outside this package may live in it (an ArchUnit rule and the sealed jar manifest keep
 * it so), which is what makes the non-public constructors of the permits mean something.
 */
package dev.postern.policy;
