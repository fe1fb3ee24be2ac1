/**
 * What an agent asks for, as typed values with no JSON left in them: the closed set of effects
 * the kernel knows. An action is a request, not a permission; only the policy engine turns one into
 * an {@link dev.postern.policy.AuthorizedAction}. JDK only.
 */
package dev.postern.policy.action;
