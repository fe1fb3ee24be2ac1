package dev.postern.executor.http;

import java.io.IOException;

/**
 * A response did not end where it said it would: bytes were buffered or waiting on the socket when
 * its body (or, for a bodiless response, its head) ended, or before the connection's next request
 * was sent. The call fails with {@code UPSTREAM_PROTOCOL_ERROR} and its connection is discarded.
 */
final class ResponseOverrunException extends IOException {
    private static final long serialVersionUID = 1L;

    /** {@code what} says what was seen, e.g. "bytes followed the end of its response body". */
    ResponseOverrunException(String what) {
        super(what);
    }
}
