package dev.postern.demo;

import java.util.Objects;

/**
 * One line of the scripted session: what a reader is told it is, the exact line sent, and what
 * the gateway must do with it.
 */
record Step(String title, String line, Expect expect) {
    Step {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(line, "line");
        Objects.requireNonNull(expect, "expect");
        if (line.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("line must be one line, without its line end");
        }
    }

    /** What the gateway must answer to a step. */
    enum Expect {
        /** A JSON-RPC result (handshake, listing, a read-only tool). */
        RESULT,
        /** A notification: no answer at all. */
        NO_ANSWER,
        /** A tool result without isError, after exactly one executor call. */
        ALLOWED,
        /** A tool result with isError and the policy rule that denied it; no executor call. */
        DENIED,
        /** A tool result with isError naming the schema pointer that failed; no executor call. */
        INVALID_ARGUMENTS,
        /** A JSON-RPC error with id null, after which the gateway ends the session and exits 2. */
        SESSION_CLOSED
    }
}
