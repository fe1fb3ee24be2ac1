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
    CHECK_FAILED(6);

    private final int code;

    ExitStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
