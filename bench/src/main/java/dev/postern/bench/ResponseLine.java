package dev.postern.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * What the load driver needs from one response line, read with Jackson's streaming parser (no tree):
 * the integer id ({@link #NO_ID} when null, absent or not an integer), the JSON-RPC error code (0
 * when none), whether a tool result says {@code isError: true}, and whether the line is a notification
 * (a {@code method} and no id: an upstream's {@code notifications/tools/list_changed}, say, which
 * answers nothing). A line that is not a JSON object reads as {@link #UNREADABLE}.
 */
record ResponseLine(long id, int errorCode, boolean toolError, boolean notification) {
    static final long NO_ID = -1;
    static final ResponseLine UNREADABLE = new ResponseLine(NO_ID, -32700, false);

    /** A line that is not a notification. */
    ResponseLine(long id, int errorCode, boolean toolError) {
        this(id, errorCode, toolError, false);
    }

    private static final JsonFactory FACTORY = new JsonFactory();

    boolean ok() {
        return id != NO_ID && errorCode == 0 && !toolError;
    }

    static ResponseLine parse(byte[] line, int offset, int length) {
        try (JsonParser p = FACTORY.createParser(line, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return UNREADABLE;
            }
            long id = NO_ID;
            int errorCode = 0;
            boolean toolError = false;
            boolean method = false;
            boolean idSeen = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("id")) {
                    idSeen = true;
                    if (value == JsonToken.VALUE_NUMBER_INT) {
                        id = p.getLongValue();
                    } else {
                        p.skipChildren();
                    }
                } else if (field.equals("method")) {
                    method = true;
                    p.skipChildren();
                } else if (field.equals("error") && value == JsonToken.START_OBJECT) {
                    errorCode = errorCode(p);
                } else if (field.equals("result") && value == JsonToken.START_OBJECT) {
                    toolError = isError(p);
                } else {
                    p.skipChildren();
                }
            }
            return new ResponseLine(id, errorCode, toolError, method && !idSeen);
        } catch (IOException e) {
            return UNREADABLE;
        }
    }

    private static int errorCode(JsonParser p) throws IOException {
        int code = Integer.MIN_VALUE;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("code") && value == JsonToken.VALUE_NUMBER_INT) {
                code = p.getIntValue();
            } else {
                p.skipChildren();
            }
        }
        return code;
    }

    private static boolean isError(JsonParser p) throws IOException {
        boolean error = false;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if (field.equals("isError")) {
                error = value == JsonToken.VALUE_TRUE;
            } else {
                p.skipChildren();
            }
        }
        return error;
    }
}
