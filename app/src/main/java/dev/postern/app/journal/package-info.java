/**
 * The audit journal adapter: decisions.jsonl and actions.jsonl, append-only JSON Lines, each row
 * chained to the one before by SHA-256 (DESIGN §6), behind the kernel's
 * {@link dev.postern.policy.port.AuditJournal} port.
 *
 * <p>Depends on {@code policy}, Jackson (to write rows) and, of the transport, its byte-level
 * {@code Sha256} and {@code StrictUtf8}; never on the protocol or an executor (an ArchUnit rule keeps
 * it so): what a row says of each kind comes through {@link dev.postern.app.journal.ActionRows}, and
 * the strict row parser through {@link dev.postern.app.journal.RowParser}. Rows hold stages, codes,
 * rules and frame hashes, never raw arguments or secrets.
 */
package dev.postern.app.journal;
