/**
 * The {@code sql_query} executor: runs a permitted statement on PostgreSQL through the JDBC driver,
 * with its values bound as typed parameters, inside a transaction that carries the database's
 * timeouts (and is read-only for read-only statements), streaming rows up to the row and byte caps.
 * A read-only call's transaction is ended ({@code ROLLBACK}) after its rows are returned, off the
 * call's path, and its connection reused only once that succeeded; a write returns after its
 * {@code COMMIT}. Each read-only call is its own {@code BEGIN READ ONLY} block rather than an
 * autocommit session with {@code default_transaction_read_only} on, which a statement could turn off
 * (docs/sql-executor.md says why in full).
 * {@link dev.postern.executor.sql.SqlActionExecutor} is the only public class outside {@code internal}
 * (which holds only what the driver instantiates by name). Depends on policy and
 * the PostgreSQL driver only.
 */
package dev.postern.executor.sql;
