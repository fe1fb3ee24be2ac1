package dev.postern.app.check;

import java.util.Objects;

/**
 * One thing {@code check-config --deep} found: how bad it is, a stable id (documented in README;
 * scripts may match on it), where in the config it is (a JSON-pointer-like location) and what is wrong.
 * Never holds a secret's value.
 */
public record Finding(Severity severity, String id, String where, String message) {

    /** ERROR: the call or start would fail, or a secret is exposed. WARNING: it works but is risky. */
    public enum Severity { ERROR, WARNING }

    public Finding {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(where, "where");
        Objects.requireNonNull(message, "message");
        if (id == null || !id.matches("[a-z]+(-[a-z]+)*")) {
            throw new IllegalArgumentException("a finding id is lower-case words joined by '-', got " + id);
        }
    }

    static Finding error(String id, String where, String message) {
        return new Finding(Severity.ERROR, id, where, message);
    }

    static Finding warning(String id, String where, String message) {
        return new Finding(Severity.WARNING, id, where, message);
    }

    /** One line: {@code error [id] where: message}. */
    public String line() {
        return severity.name().toLowerCase(java.util.Locale.ROOT) + " [" + id + "] " + where + ": " + message;
    }
}
