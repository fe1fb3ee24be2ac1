package dev.postern.policy;

import dev.postern.policy.model.Printable;
import dev.postern.policy.Decision.Deny;
import dev.postern.policy.model.ParamSpec;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The checks every kind with declared params makes (DESIGN §4), written once: exactly the declared
 * names, and each value of its declared type and within its spec. A denial's rule is the kind's
 * prefix and a shared suffix ({@code ssh.args.range}, {@code sql.args.range}); its reason names the
 * argument and the bound, never more of the value than the agent sent. Stateless.
 */
final class ParamChecks {
    private final String prefix;
    private final String operation;

    /**
     * @param prefix    the kind's rule prefix, {@code ssh} or {@code sql}
     * @param operation what takes the arguments, as the reason names it: {@code command restart}
     */
    ParamChecks(String prefix, String operation) {
        this.prefix = prefix;
        this.operation = operation;
    }

    /** An argument no param declares ({@code .args.unknown}) or a declared param without one ({@code .args.missing}). */
    Optional<Deny> names(Set<String> declared, Set<String> given) {
        TreeSet<String> unknown = new TreeSet<>(given);
        unknown.removeAll(declared);
        if (!unknown.isEmpty()) {
            return Optional.of(deny("unknown", operation + " takes no argument " + Printable.shown(unknown.toString())));
        }
        TreeSet<String> missing = new TreeSet<>(declared);
        missing.removeAll(given);
        if (!missing.isEmpty()) {
            return Optional.of(deny("missing", operation + " needs argument " + missing));
        }
        return Optional.empty();
    }

    /** The value is not of the param's type: {@code expected} is {@code an integer}, {@code a string}, … */
    Deny type(String name, String expected) {
        return deny("type", "argument " + name + " must be " + expected);
    }

    /** A whole number outside an integer param's bounds. */
    Optional<Deny> whole(String name, ParamSpec.IntegerParam p, long value) {
        return value < p.minimum() || value > p.maximum() ? Optional.of(outOfRange(name, p)) : Optional.empty();
    }

    /** The denial for a value outside {@code p}'s bounds (also for a whole number too large for any). */
    Deny outOfRange(String name, ParamSpec.IntegerParam p) {
        return range(name, "must be in " + p.minimum() + ".." + p.maximum());
    }

    /** A bound of a number param, said as {@code must be in 0..10} or {@code has more than 1000 digits}. */
    Deny range(String name, String bound) {
        return deny("range", "argument " + name + " " + bound);
    }

    /** A string longer than its param allows, with NUL, outside its enum, or not matching its pattern. */
    Optional<Deny> text(String name, ParamSpec.StringParam p, String s) {
        if (s.codePointCount(0, s.length()) > p.maxLength()) {
            return Optional.of(deny("length", "argument " + name + " is longer than " + p.maxLength()));
        }
        if (s.indexOf('\0') >= 0) {
            // Neither an argv element nor PostgreSQL's text can hold NUL; refusing here is clearer than what fails later.
            return Optional.of(deny("nul", "argument " + name + " must not contain NUL"));
        }
        if (p.allowed().isPresent() && !p.allowed().get().contains(s)) {
            return Optional.of(deny("enum", "argument " + name + " must be one of " + p.allowed().get()));
        }
        if (p.pattern().isPresent() && !p.pattern().get().matcher(s).matches()) {
            return Optional.of(deny("pattern", "argument " + name + " must match " + p.pattern().get().pattern()));
        }
        return Optional.empty();
    }

    /** The params in name order, so that the first failing check is the same on every run. */
    static <V> Map<String, V> inOrder(Map<String, V> params) {
        return new java.util.TreeMap<>(params);
    }

    private Deny deny(String suffix, String reason) {
        return new Deny(prefix + ".args." + suffix, reason);
    }
}
