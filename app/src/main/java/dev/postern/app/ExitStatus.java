package dev.postern.app;

/** The process exit statuses Postern documents (README, "Exit statuses"). */
public enum ExitStatus {
    /** End of input, every in-flight call answered; or a command that succeeded. */
    OK(0),
    /** The command line was wrong. */
    USAGE(1),
    /** The session was closed after a framing, JSON or JSON-RPC error. */
    PROTOCOL_ERROR(2),
    /** The protocol output (stdout) broke, e.g. the client went away. */
    OUTPUT_BROKEN(3),
    /** The configuration did not load; nothing started. */
    CONFIG_ERROR(4),
    /** The journal could not be opened, or another start-up failure. */
    STARTUP_FAILED(5),
    /** A check found a problem: {@code audit verify} on a broken chain, {@code explain} on a denial. */
    CHECK_FAILED(6),
    /**
     * A fault inside Postern ended the session: an exception on the reader thread, or a fatal VM error
     * (such as OutOfMemoryError) on any thread. In-flight calls were cancelled and the journals flushed.
     */
    INTERNAL_ERROR(7),
    /** The session's thread was interrupted; in-flight calls were cancelled. */
    INTERRUPTED(8);

    private final int code;

    ExitStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
