package dev.postern.executor.http;

import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import javax.net.ssl.SSLException;
import org.apache.hc.client5.http.ConnectTimeoutException;

/**
 * Turns what ended an HTTP exchange early into a failure with a stable code and words for the agent
 * that name the target but never its host, address or the exception (the executor adds those to the
 * journal's detail). Stateless.
 */
final class HttpFailures {
    private HttpFailures() {
    }

    /**
     * The failure for {@code e}, thrown by the exchange with {@code target}: the call's own cancellation
     * or deadline ({@code aborted}, null when neither fired) first, then the first of these causes found
     * in its chain (16 deep): a timeout, a response overrun, a refused address, TLS, a failed connection,
     * an interrupt; anything else is the exchange failing mid-response.
     */
    static ExecutionFailure of(FailureCode aborted, Exception e, HttpTarget target, long millis) {
        String name = target.name();
        if (aborted == FailureCode.CANCELLED) {
            return new ExecutionFailure(FailureCode.CANCELLED, "the call to " + name + " was cancelled");
        }
        if (aborted == FailureCode.TIMEOUT || cause(e, SocketTimeoutException.class) != null
                || cause(e, ConnectTimeoutException.class) != null) {
            return new ExecutionFailure(FailureCode.TIMEOUT,
                    "no complete response from " + name + " within " + millis + " ms");
        }
        ResponseOverrunException overrun = cause(e, ResponseOverrunException.class);
        if (overrun != null) {
            return new ExecutionFailure(FailureCode.UPSTREAM_PROTOCOL_ERROR, "a response from " + name
                    + " did not end where its headers said it would: " + overrun.getMessage()
                    + "; nothing of it is returned and the connection was discarded");
        }
        AddressRefusedException refused = cause(e, AddressRefusedException.class);
        if (refused != null) {
            return new ExecutionFailure(FailureCode.ADDRESS_REFUSED, "target " + name + ": " + refused.inWords());
        }
        if (cause(e, SSLException.class) != null) {
            return new ExecutionFailure(FailureCode.TLS_FAILED, "the TLS handshake with " + name
                    + " failed (an untrusted or wrong certificate, no protocol in common, or a server that does not speak TLS)");
        }
        if (cause(e, UnknownHostException.class) != null || cause(e, ConnectException.class) != null
                || cause(e, NoRouteToHostException.class) != null) {
            return new ExecutionFailure(FailureCode.CONNECT_FAILED, "cannot connect to " + name + ": "
                    + (cause(e, UnknownHostException.class) != null ? "its host name does not resolve"
                    : cause(e, NoRouteToHostException.class) != null ? "there is no route to its host"
                    : refusedConnection(e) ? "the connection was refused" : "no connection could be made"));
        }
        // A socket's channel closes when its reading thread is interrupted (the session shutting down).
        if (cause(e, InterruptedIOException.class) != null || cause(e, ClosedByInterruptException.class) != null) {
            return new ExecutionFailure(FailureCode.CANCELLED, "the call to " + name + " was interrupted");
        }
        return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the exchange with " + name
                + " failed before a whole response was read (the connection closed or reset, or the response broke HTTP)");
    }

    private static boolean refusedConnection(Throwable e) {
        ConnectException c = cause(e, ConnectException.class);
        return c != null && String.valueOf(c.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("refused");
    }

    private static <T extends Throwable> T cause(Throwable e, Class<T> type) {
        Throwable t = e;
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }
}
