/**
 * The audit journal adapter: decisions.jsonl and actions.jsonl, append-only JSON Lines, each row
 * chained to the one before by SHA-256 (DESIGN §6), behind the kernel's
 * {@link dev.postern.policy.port.AuditJournal} port.
 *
 * <p>Depends on {@code policy} and Jackson (to write rows); never on the protocol, the transport or
 * an executor. Rows hold stages, codes, rules and frame hashes, never raw arguments or secrets.
 */
package dev.postern.app.journal;
