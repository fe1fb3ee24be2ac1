package dev.postern.app.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Parses {@code --name VALUE} and {@code --name=VALUE} options strictly: every option must be known,
 * given once and have a value; flags (options that take no value) are given by name alone;
 * positional arguments are kept in order.
 */
public final class Options {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final java.util.Set<String> flags = new java.util.HashSet<>();
    private final List<String> positional;

    private Options(List<String> positional) {
        this.positional = positional;
    }

    public static Options parse(List<String> args, Set<String> known) throws UsageException {
        return parse(args, known, Set.of());
    }

    /** As {@link #parse(List, Set)}, also accepting the value-less {@code knownFlags}. */
    public static Options parse(List<String> args, Set<String> known, Set<String> knownFlags) throws UsageException {
        java.util.ArrayList<String> positional = new java.util.ArrayList<>();
        Options o = new Options(positional);
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith("--")) {
                int eq = a.indexOf('=');
                String name = eq < 0 ? a : a.substring(0, eq);
                if (knownFlags.contains(name)) {
                    if (eq >= 0) {
                        throw new UsageException(name + " takes no value");
                    }
                    if (!o.flags.add(name)) {
                        throw new UsageException(name + " is given twice");
                    }
                    continue;
                }
                if (!known.contains(name)) {
                    throw new UsageException("unknown option " + name);
                }
                String value;
                if (eq >= 0) {
                    value = a.substring(eq + 1);
                } else if (i + 1 < args.size()) {
                    value = args.get(++i);
                } else {
                    throw new UsageException(name + " needs a value");
                }
                if (value.isEmpty()) {
                    throw new UsageException(name + " needs a value");
                }
                if (o.values.put(name, value) != null) {
                    throw new UsageException(name + " is given twice");
                }
            } else {
                positional.add(a);
            }
        }
        return o;
    }

    public Optional<String> get(String name) {
        return Optional.ofNullable(values.get(name));
    }

    public boolean has(String flag) {
        return flags.contains(flag);
    }

    public String require(String name) throws UsageException {
        return get(name).orElseThrow(() -> new UsageException(name + " is required"));
    }

    public List<String> positional() {
        return List.copyOf(positional);
    }

    /** A command line that does not fit the command's synopsis. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        public UsageException(String message) {
            super(message);
        }
    }
}
