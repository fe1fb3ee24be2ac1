package dev.postern.app.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/** A configuration that cannot be used, located by file and JSON pointer; it may list several problems. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Path file;
    private final transient List<Problem> problems;

    /** One thing wrong with the file: where (a JSON pointer, or null for the file as a whole) and what was expected. */
    public record Problem(String pointer, String expected) {
        public Problem {
            Objects.requireNonNull(expected, "expected");
        }

        String located() {
            return (pointer == null ? "" : "at " + (pointer.isEmpty() ? "/" : pointer) + ": ") + expected;
        }
    }

    public ConfigException(Path file, String pointer, String expected) {
        this(file, List.of(new Problem(pointer, expected)));
    }

    /** Every problem found in one pass; at least one. */
    public ConfigException(Path file, List<Problem> problems) {
        super(message(file, problems));
        this.file = file;
        this.problems = List.copyOf(problems);
    }

    private static String message(Path file, List<Problem> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a config error needs at least one problem");
        }
        if (problems.size() == 1) {
            Problem p = problems.get(0);
            return file + (p.pointer() == null ? "" : " at " + (p.pointer().isEmpty() ? "/" : p.pointer())) + ": " + p.expected();
        }
        return file + ": " + problems.size() + " problems:\n" + problems.stream().map(p -> "  " + p.located())
                .collect(Collectors.joining("\n"));
    }

    public Path file() {
        return file;
    }

    /** The JSON pointer of the (first) offending value, or null when the file itself is the problem. */
    public String pointer() {
        return problems.get(0).pointer();
    }

    public List<Problem> problems() {
        return problems;
    }
}
