package dev.postern.app.config;

import java.nio.file.Path;

/** A configuration that cannot be used, located by file and JSON pointer. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Path file;
    private final String pointer;

    public ConfigException(Path file, String pointer, String expected) {
        super(file + (pointer == null ? "" : " at " + (pointer.isEmpty() ? "/" : pointer)) + ": " + expected);
        this.file = file;
        this.pointer = pointer;
    }

    public Path file() {
        return file;
    }

    /** The JSON pointer of the offending value, or null when the file itself is the problem. */
    public String pointer() {
        return pointer;
    }
}
