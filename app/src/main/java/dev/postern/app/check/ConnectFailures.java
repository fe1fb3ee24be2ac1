package dev.postern.app.check;

import java.io.EOFException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says in an operator's words why a TCP connection or a TLS handshake with an HTTP target failed,
 * from the exception's cause chain: the host name does not resolve, the connection was refused,
 * reset or timed out, the server closed it mid-handshake, did not speak TLS, or refused the
 * handshake; the certificate is not trusted, expired, not yet valid, or not for the host; no TLS
 * version in common. Never an exception's class name or raw message (only a TLS alert's name, which
 * is the protocol's word), and never a stack trace. Stateless.
 *
 * <p>Limits: the JDK tells some causes only by message (the host name mismatch, an alert, a non-TLS
 * answer); a message it words differently falls back to the bare "failed" with no reason.
 */
final class ConnectFailures {
    /** How the JDK names a fatal TLS alert from the server; the alert's name is shown, nothing else. */
    private static final Pattern ALERT = Pattern.compile("Received fatal alert: ([a-z_]{1,40})");

    /** Which step failed: the address lookup and TCP connection, or the TLS handshake over it. */
    enum Step { CONNECT, HANDSHAKE }

    private ConnectFailures() {
    }

    /**
     * Why {@code failure} happened, as a phrase after "failed: ", or empty when the chain says nothing
     * this knows. {@code host} is the target's host, {@code timeoutMillis} the timeout that applied,
     * {@code trust} what the certificate had to chain to ("trust store F" or "the JDK's default CAs").
     */
    static Optional<String> reason(Throwable failure, Step step, String host, long timeoutMillis, String trust) {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
            Optional<String> phrase = phrase(c, step, host, timeoutMillis, trust);
            if (phrase.isPresent()) {
                return phrase;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> phrase(Throwable c, Step step, String host, long timeoutMillis, String trust) {
        String m = c.getMessage() == null ? "" : c.getMessage();
        if (c instanceof UnknownHostException) {
            return Optional.of("the host name " + host + " does not resolve here");
        }
        if (c instanceof NoRouteToHostException) {
            return Optional.of("no route to " + host);
        }
        if (c instanceof ConnectException) {
            return Optional.of(m.toLowerCase(Locale.ROOT).contains("refused")
                    ? "the connection was refused (nothing listens on that port, or a firewall rejects it)"
                    : "no connection could be made");
        }
        if (c instanceof SocketTimeoutException) {
            return Optional.of(step == Step.CONNECT
                    ? "no connection within " + timeoutMillis + " ms (timed out)"
                    : "the server did not answer the TLS handshake within " + timeoutMillis + " ms (timed out; is it a plain http port?)");
        }
        if (c instanceof CertificateExpiredException) {
            return Optional.of("the server's certificate has expired");
        }
        if (c instanceof CertificateNotYetValidException) {
            return Optional.of("the server's certificate is not valid yet");
        }
        if (c instanceof CertPathValidatorException v && v.getReason() instanceof CertPathValidatorException.BasicReason r) {
            switch (r) {
                case EXPIRED:
                    return Optional.of("the server's certificate has expired");
                case NOT_YET_VALID:
                    return Optional.of("the server's certificate is not valid yet");
                case REVOKED:
                    return Optional.of("the server's certificate has been revoked");
                default:
                    break;
            }
        }
        if (c instanceof CertPathBuilderException || c instanceof CertPathValidatorException) {
            return Optional.of("the server's certificate is not trusted: it does not chain to a certificate in " + trust);
        }
        if (m.startsWith("No subject alternative") || m.startsWith("No name matching")) {
            return Optional.of("the server's certificate is not for " + host + " (host name verification)");
        }
        if (m.contains("protocol_version") || m.contains("protocol version") || m.startsWith("No appropriate protocol")) {
            return Optional.of("the server and the gateway have no TLS protocol version in common");
        }
        Matcher alert = ALERT.matcher(m);
        if (alert.find()) {
            return Optional.of("the server refused the handshake (TLS alert " + alert.group(1) + ")");
        }
        if (m.startsWith("Unsupported or unrecognized SSL message")) {
            return Optional.of("the server did not answer in TLS (is it a plain http port?)");
        }
        if (c instanceof EOFException || m.equals("Remote host terminated the handshake")) {
            return Optional.of("the server closed the connection during the handshake");
        }
        if (c instanceof SocketException && m.toLowerCase(Locale.ROOT).contains("reset")) {
            return Optional.of("the server reset the connection" + (step == Step.HANDSHAKE ? " during the handshake" : ""));
        }
        return Optional.empty();
    }
}
