package dev.postern.app.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Parses {@code --name VALUE} options strictly: every option must be known, given once and have a
 * value; positional arguments are kept in order.
 */
public final class Options {
    private final Map<String, String> values = new LinkedHashMap<>();
    private final List<String> positional;

    private Options(List<String> positional) {
        this.positional = positional;
    }

    public static Options parse(List<String> args, Set<String> known) throws UsageException {
        return parse(args, known, Set.of());
    }

    /** As {@link #parse(List, Set)}, and {@code flags} are options without a value ({@link #flag}). */
    public static Options parse(List<String> args, Set<String> known, Set<String> flags) throws UsageException {
        java.util.ArrayList<String> positional = new java.util.ArrayList<>();
        Options o = new Options(positional);
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith("--") && flags.contains(a)) {
                if (o.values.put(a, "") != null) {
                    throw new UsageException(a + " is given twice");
                }
            } else if (a.startsWith("--")) {
                if (!known.contains(a)) {
                    throw new UsageException("unknown option " + a);
                }
                if (i + 1 >= args.size()) {
                    throw new UsageException(a + " needs a value");
                }
                if (o.values.put(a, args.get(++i)) != null) {
                    throw new UsageException(a + " is given twice");
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

    /** Whether flag {@code name} was given. */
    public boolean flag(String name) {
        return values.containsKey(name);
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
