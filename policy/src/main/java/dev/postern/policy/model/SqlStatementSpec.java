package dev.postern.policy.model;

import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A statement an operator allows on a database: a name, exactly one SQL statement with
 * {@code :name} placeholders, the spec of every param, whether it only reads (run in a read-only
 * transaction; the default), whether a call needs a human's approval, and the name it is also offered
 * under as a tool of its own, if the operator asked. Every placeholder names a
 * declared param and every declared param is used, so a spec cannot silently ignore an argument.
 */
public record SqlStatementSpec(String name, String sql, Map<String, ParamSpec> params, boolean readOnly, boolean confirm,
                               Optional<TypedTool> tool) {

    /** A statement offered only through the generic {@code sql_query} tool. */
    public SqlStatementSpec(String name, String sql, Map<String, ParamSpec> params, boolean readOnly, boolean confirm) {
        this(name, sql, params, readOnly, confirm, Optional.empty());
    }

    public SqlStatementSpec {
        Objects.requireNonNull(tool, "tool");
        Names.require("statement name", name);
        Objects.requireNonNull(sql, "sql");
        params = Map.copyOf(Objects.requireNonNull(params, "params"));
        SqlText text;
        try {
            text = SqlText.parse(sql);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("statement " + name + ": " + e.getMessage(), e);
        }
        Set<String> used = new HashSet<>(text.placeholders());
        if (!used.equals(params.keySet())) {
            Set<String> undeclared = new HashSet<>(used);
            undeclared.removeAll(params.keySet());
            Set<String> unused = new HashSet<>(params.keySet());
            unused.removeAll(used);
            throw new IllegalArgumentException("statement " + name + ": placeholders and params differ"
                    + (undeclared.isEmpty() ? "" : "; placeholders without a param " + undeclared)
                    + (unused.isEmpty() ? "" : "; params without a placeholder " + unused));
        }
    }

    /** A read-only statement that needs no approval: the common case. */
    public SqlStatementSpec(String name, String sql, Map<String, ParamSpec> params) {
        this(name, sql, params, true, false);
    }

    /** The statement lexed: its placeholders in order and its JDBC form. */
    public SqlText text() {
        return SqlText.parse(sql);
    }
}
