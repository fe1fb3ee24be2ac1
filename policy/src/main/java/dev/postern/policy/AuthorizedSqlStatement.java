package dev.postern.policy;

import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import java.util.List;
import java.util.Objects;

/**
 * A permitted SQL statement: the database (address, user, credential, TLS, limits), the operator's
 * statement, its text in JDBC's positional form, and the value for each {@code ?} in order, typed as
 * its param declares (a number param always as an exact decimal). Immutable.
 */
public final class AuthorizedSqlStatement extends AuthorizedAction {
    private final SqlQueryAction action;
    private final SqlDatabase database;
    private final SqlStatementSpec statement;
    private final String jdbcSql;
    private final List<Argument> boundValues;

    AuthorizedSqlStatement(SqlQueryAction action, SqlDatabase database, SqlStatementSpec statement,
            String jdbcSql, List<Argument> boundValues, String rule) {
        super(rule);
        this.action = Objects.requireNonNull(action, "action");
        this.database = Objects.requireNonNull(database, "database");
        this.statement = Objects.requireNonNull(statement, "statement");
        this.jdbcSql = Objects.requireNonNull(jdbcSql, "jdbcSql");
        this.boundValues = List.copyOf(boundValues);
    }

    @Override
    public SqlQueryAction action() {
        return action;
    }

    @Override
    public Allowance allowance() {
        return database;
    }

    public SqlDatabase database() {
        return database;
    }

    public SqlStatementSpec statement() {
        return statement;
    }

    /** The statement with one {@code ?} per placeholder occurrence, for a PreparedStatement. */
    public String jdbcSql() {
        return jdbcSql;
    }

    /** The value for each {@code ?} of {@link #jdbcSql()}, in order. */
    public List<Argument> boundValues() {
        return boundValues;
    }

    @Override
    public String toString() {
        return "AuthorizedSqlStatement[" + statement.name() + " on " + database.name() + ", rule=" + rule() + ']';
    }
}
