package dev.postern.protocol.json;

/**
 * A frame that is not exactly one strict JSON value. A syntax error, as opposed to a shape error
 * (valid JSON of the wrong form), which the JSON-RPC layer reports.
 */
public final class JsonSyntaxError extends Exception {
    private static final long serialVersionUID = 1L;

    public JsonSyntaxError(String message) {
        super(message);
    }
}
