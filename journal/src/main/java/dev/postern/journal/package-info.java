/**
 * The audit journal adapter: decisions.jsonl and actions.jsonl, append-only JSON Lines, each row
 * chained to the one before by SHA-256 (DESIGN §6), behind the kernel's
 * {@link dev.postern.policy.port.AuditJournal} port; and the readers {@code audit show} and
 * {@code audit verify} use ({@link dev.postern.journal.JournalReader}, {@link dev.postern.journal.ChainVerifier}).
 *
 * <p>Its own module, a driven adapter like the executors: it depends on {@code policy}, Jackson (to
 * write rows) and, of the transport, its byte-level {@code Sha256} and {@code StrictUtf8}; never on
 * the protocol, an executor or app (journal/pom.xml bans them). What a row says of each kind comes
 * through {@link dev.postern.journal.ActionRows}, and the strict row parser through
 * {@link dev.postern.journal.RowParser}. Rows hold stages, codes, rules and frame hashes, never raw
 * arguments or secrets.
 */
package dev.postern.journal;
