/**
 * The ports the kernel defines and the outer ring implements: executors, the audit journal and
 * the credential store. Named for capabilities; adapters are named for technologies
 * ({@code HttpActionExecutor}, {@code FileAuditJournal}). JDK only.
 */
package dev.postern.policy.port;
