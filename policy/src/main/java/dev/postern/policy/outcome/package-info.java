/**
 * What an executor reports back: a typed result per kind of effect, or a failure with a stable
 * code. Outcomes hold bytes and numbers, never JSON; the protocol module renders them. JDK only.
 */
package dev.postern.policy.outcome;
