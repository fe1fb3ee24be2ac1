package dev.postern.executor.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.net.AddressRanges;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedByInterruptException;
import javax.net.ssl.SSLHandshakeException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * What ended an exchange early, mapped to a code and to words that name the target only: the call's
 * own cancellation and deadline first, then the first known cause in the exception's chain.
 */
class HttpFailuresTest {
    private static final HttpTarget TARGET = Permits.target("http://127.0.0.1:9");

    private static ExecutionFailure of(Exception e) {
        return HttpFailures.of(null, e, TARGET, 750);
    }

    private static IOException wrapped(Throwable cause) {
        return new IOException("outer", new IOException("middle", cause));
    }

    @Test
    void theCallsCancellationWinsOverAnyCause() {
        ExecutionFailure f = HttpFailures.of(FailureCode.CANCELLED, new SocketTimeoutException("read"), TARGET, 750);
        assertEquals(FailureCode.CANCELLED, f.code());
        assertEquals("the call to svc was cancelled", f.message());
    }

    @Test
    void theCallsDeadlineAndTheSocketsTimeoutsAreTimeoutsNamingTheBudget() {
        String words = "no complete response from svc within 750 ms";
        ExecutionFailure deadline = HttpFailures.of(FailureCode.TIMEOUT, new IOException("aborted"), TARGET, 750);
        assertEquals(FailureCode.TIMEOUT, deadline.code());
        assertEquals(words, deadline.message());
        assertEquals(words, of(wrapped(new SocketTimeoutException("read timed out"))).message());
        assertEquals(FailureCode.TIMEOUT, of(new ConnectTimeoutException("connect timed out")).code());
    }

    @Test
    void aResponseThatOverranItsLengthIsAProtocolErrorSayingNothingIsReturned() {
        ExecutionFailure f = of(wrapped(new ResponseOverrunException("12 bytes after the declared end")));
        assertEquals(FailureCode.UPSTREAM_PROTOCOL_ERROR, f.code());
        assertEquals("a response from svc did not end where its headers said it would: 12 bytes after the declared end;"
                + " nothing of it is returned and the connection was discarded", f.message());
    }

    @Test
    void aRefusedAddressIsSaidInWordsWithoutTheHostOrTheAddress() throws Exception {
        InetAddress address = InetAddress.getByAddress(new byte[] {10, 0, 0, 5});
        AddressRefusedException refused = new AddressRefusedException("db.internal", address,
                AddressRanges.classify(address.getAddress()), false);
        ExecutionFailure f = of(wrapped(refused));
        assertEquals(FailureCode.ADDRESS_REFUSED, f.code());
        assertEquals("target svc: " + refused.inWords(), f.message());
    }

    @Test
    void aTlsFailureIsTlsFailed() {
        ExecutionFailure f = of(wrapped(new SSLHandshakeException("PKIX path building failed")));
        assertEquals(FailureCode.TLS_FAILED, f.code());
        assertEquals("the TLS handshake with svc failed (an untrusted or wrong certificate, no protocol in common, or a server"
                + " that does not speak TLS)", f.message());
    }

    @Test
    void aConnectionThatCouldNotBeMadeSaysWhyInWords() {
        assertEquals("cannot connect to svc: its host name does not resolve", of(new UnknownHostException("nowhere.example")).message());
        assertEquals("cannot connect to svc: there is no route to its host", of(wrapped(new NoRouteToHostException("x"))).message());
        assertEquals("cannot connect to svc: the connection was refused", of(new ConnectException("Connection Refused")).message());
        assertEquals("cannot connect to svc: no connection could be made", of(new ConnectException("network is unreachable")).message());
        assertEquals("cannot connect to svc: no connection could be made", of(new ConnectException()).message());
        assertEquals(FailureCode.CONNECT_FAILED, of(new ConnectException("refused")).code());
    }

    @Test
    void anInterruptedExchangeIsCancelled() {
        assertEquals(FailureCode.CANCELLED, of(wrapped(new InterruptedIOException("interrupted"))).code());
        ExecutionFailure f = of(wrapped(new ClosedByInterruptException()));
        assertEquals(FailureCode.CANCELLED, f.code());
        assertEquals("the call to svc was interrupted", f.message());
    }

    @Test
    void anythingElseIsTheExchangeFailingBeforeAWholeResponse() {
        ExecutionFailure f = of(new IOException("Connection reset"));
        assertEquals(FailureCode.EXECUTOR_FAILED, f.code());
        assertEquals("the exchange with svc failed before a whole response was read (the connection closed or reset, or the"
                + " response broke HTTP)", f.message());
        assertEquals(FailureCode.EXECUTOR_FAILED, of(new IllegalStateException("pool shut down")).code());
    }

    @Test
    void aCauseDeeperThanSixteenIsNotLookedFor() {
        Throwable chain = new SocketTimeoutException("deep");
        for (int i = 0; i < 16; i++) {
            chain = new IOException("level " + i, chain);
        }
        assertEquals(FailureCode.EXECUTOR_FAILED, of((IOException) chain).code());
        Throwable shallower = new SocketTimeoutException("deep");
        for (int i = 0; i < 15; i++) {
            shallower = new IOException("level " + i, shallower);
        }
        assertEquals(FailureCode.TIMEOUT, of((IOException) shallower).code());
    }
}
