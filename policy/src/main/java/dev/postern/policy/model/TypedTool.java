package dev.postern.policy.model;

import java.util.regex.Pattern;

/**
 * The operator's name for one operation offered as a tool of its own (an SSH command, a SQL
 * statement, an HTTP target, config key {@code "tool"}): two snake_case words joined by {@code __},
 * as upstream tools are named {@code server__tool}, at most 64 characters. It names a tool only; what a
 * call of it may do is decided by the same rules as the kind's generic tool.
 */
public record TypedTool(String name) {
    /** A word of lower-case letters and digits, words joined by one {@code _}; two such names joined by {@code __}. */
    public static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*(?:_[a-z0-9]+)*__[a-z0-9]+(?:_[a-z0-9]+)*");
    /** The longest tool name common clients accept. */
    public static final int MAX_LENGTH = 64;

    public TypedTool {
        if (name == null || name.length() > MAX_LENGTH || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("tool must match " + NAME.pattern() + " (like shop__cancel_order) in at most "
                    + MAX_LENGTH + " characters, got " + Names.quote(name));
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
