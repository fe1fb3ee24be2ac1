package dev.postern.transport;

import java.util.Objects;

/**
 * A line the reader refused, and why: the kind, a detail fit for stderr and the error response
 * (positions and sizes, never the line's content), and the SHA-256 of the line's bytes that were
 * seen (for {@link Kind#TOO_LONG}, the bytes up to the limit). The session closes after one.
 */
public record FramingError(Kind kind, String detail, String sha256) implements ReadResult {

    /** Why a line was refused. Names are part of the journal's vocabulary: add, never rename. */
    public enum Kind {
        /** A line terminator with no byte before it (LF or CRLF alone). */
        EMPTY_LINE,
        /** More bytes than the limit before the terminator; detected while reading, never buffered. */
        TOO_LONG,
        /** Bytes that are not well-formed UTF-8: overlong forms, encoded surrogates, bytes over F4, cut sequences. */
        INVALID_UTF8,
        /** The line starts with EF BB BF. */
        BYTE_ORDER_MARK,
        /** A CR that is not immediately followed by LF. */
        BARE_CR,
        /** Bytes at end of input with no LF after them. */
        TRUNCATED,
        /** The input stream failed. */
        IO_ERROR
    }

    public FramingError {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(detail, "detail");
        Sha256.requireHex("sha256", sha256);
    }
}
