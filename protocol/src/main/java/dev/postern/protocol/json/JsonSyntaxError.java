package dev.postern.protocol.json;

/**
 * A frame that is not exactly one strict JSON value. A syntax error, as opposed to a shape error
 * (valid JSON of the wrong form), which the JSON-RPC layer reports.
 */
public final class JsonSyntaxError extends Exception {
    private static final long serialVersionUID = 1L;
    private final int line;
    private final int column;

    public JsonSyntaxError(String message) {
        this(message, -1, -1);
    }

    /** An error at a known place in the text: 1-based line and column (characters), or -1 when unknown. */
    public JsonSyntaxError(String message, int line, int column) {
        super(message);
        this.line = line;
        this.column = column;
    }

    /** The 1-based line of the error, or -1 when the parser did not say. */
    public int line() {
        return line;
    }

    /** The 1-based column (in characters) of the error, or -1 when the parser did not say. */
    public int column() {
        return column;
    }
}
