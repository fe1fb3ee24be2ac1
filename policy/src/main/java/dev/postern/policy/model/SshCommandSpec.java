package dev.postern.policy.model;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command an operator allows on a host: a name, an argv template whose elements may hold
 * {@code {param}} placeholders, and the spec of every param. Every placeholder names a declared
 * param and every declared param is used, so a spec cannot silently ignore an argument. With
 * {@code confirm}, each call also needs a human's approval of the exact command line. With {@code tool},
 * it is also offered as a tool of its own under that name.
 */
public record SshCommandSpec(String name, List<String> argv, Map<String, ParamSpec> params, boolean confirm,
                             Optional<TypedTool> tool) {

    /** A placeholder: {@code {name}} with a name of letters, digits and underscores. */
    public static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z_][A-Za-z0-9_]{0,63})}");

    /** A command that runs on policy alone, without asking a human. */
    public SshCommandSpec(String name, List<String> argv, Map<String, ParamSpec> params) {
        this(name, argv, params, false);
    }

    /** A command offered only through the generic {@code ssh_exec} tool. */
    public SshCommandSpec(String name, List<String> argv, Map<String, ParamSpec> params, boolean confirm) {
        this(name, argv, params, confirm, Optional.empty());
    }

    public SshCommandSpec {
        Objects.requireNonNull(tool, "tool");
        Names.require("command name", name);
        argv = List.copyOf(Objects.requireNonNull(argv, "argv"));
        params = Map.copyOf(Objects.requireNonNull(params, "params"));
        for (var e : params.entrySet()) {
            if (!(e.getValue() instanceof ParamSpec.StringParam) && !(e.getValue() instanceof ParamSpec.IntegerParam)) {
                throw new IllegalArgumentException("command " + name + ": param " + e.getKey()
                        + " must be a string or an integer; an SSH command takes no other type");
            }
        }
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("command " + name + ": argv must not be empty");
        }
        Set<String> used = new HashSet<>();
        for (String element : argv) {
            if (element.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("command " + name + ": argv must not contain NUL");
            }
            Matcher m = PLACEHOLDER.matcher(element);
            while (m.find()) {
                used.add(m.group(1));
            }
        }
        if (!used.equals(params.keySet())) {
            Set<String> undeclared = new HashSet<>(used);
            undeclared.removeAll(params.keySet());
            Set<String> unused = new HashSet<>(params.keySet());
            unused.removeAll(used);
            throw new IllegalArgumentException("command " + name + ": placeholders and params differ"
                    + (undeclared.isEmpty() ? "" : "; undeclared placeholders " + undeclared)
                    + (unused.isEmpty() ? "" : "; unused params " + unused));
        }
    }
}
