package dev.postern.policy.action;

import java.util.Map;
import java.util.Objects;

/**
 * A request to run one statement the operator wrote, on one configured database, with values for
 * the statement's placeholders. There is no SQL here, by design: the text comes from the policy file.
 */
public record SqlQueryAction(String database, String statement, Map<String, Argument> args) implements Action {
    /** The generic tool that asks for this action; its name is the kernel's, the protocol's kind repeats none. */
    public static final String TOOL = "sql_query";


    public SqlQueryAction {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(statement, "statement");
        args = Map.copyOf(Objects.requireNonNull(args, "args"));
    }
}
