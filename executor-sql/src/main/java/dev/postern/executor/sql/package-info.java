/**
 * The {@code sql_query} executor: runs a permitted statement on PostgreSQL through the JDBC driver,
 * with its values bound as typed parameters, inside a transaction that carries the database's
 * timeouts (and is read-only for read-only statements), streaming rows up to the row and byte caps.
 * {@link dev.postern.executor.sql.SqlActionExecutor} is the only public class. Depends on policy and
 * the PostgreSQL driver only.
 */
package dev.postern.executor.sql;
