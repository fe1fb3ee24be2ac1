package dev.postern.policy.outcome;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postern.policy.action.HeaderField;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two outcome records that hold byte arrays: they check their status range, copy their bytes
 * in and out, compare by content field by field, and print sizes instead of bodies.
 */
class OutcomeValuesTest {
    private static final List<HeaderField> HEADERS = List.of(new HeaderField("Content-Type", "text/plain"));

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static HttpResponseOutcome http(String target, int status, List<HeaderField> headers, String body, boolean truncated) {
        return new HttpResponseOutcome(target, status, headers, bytes(body), truncated);
    }

    @ParameterizedTest
    @ValueSource(ints = {100, 200, 599, 999})
    void anHttpStatusFrom100To999IsKept(int status) {
        assertEquals(status, http("api", status, HEADERS, "", false).status());
    }

    @ParameterizedTest
    @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, 99, 1000, Integer.MAX_VALUE})
    void anHttpStatusOutside100To999IsRefused(int status) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> http("api", status, HEADERS, "", false));
        assertEquals("status must be 100..999, got " + status, e.getMessage());
    }

    @Test
    void anHttpBodyIsCopiedInAndOut() {
        byte[] body = bytes("abc");
        HttpResponseOutcome o = new HttpResponseOutcome("api", 200, HEADERS, body, false);
        body[0] = 'X';
        assertArrayEquals(bytes("abc"), o.body());
        o.body()[1] = 'Y';
        assertArrayEquals(bytes("abc"), o.body());
    }

    @Test
    void httpOutcomesAreEqualExactlyWhenEveryFieldIs() {
        HttpResponseOutcome base = http("api", 200, HEADERS, "abc", false);
        HttpResponseOutcome same = http("api", 200, List.copyOf(HEADERS), "abc", false);
        assertEquals(base, same);
        assertEquals(base.hashCode(), same.hashCode());
        assertEquals(base, base);
        assertNotEquals(base, http("other", 200, HEADERS, "abc", false));
        assertNotEquals(base, http("api", 201, HEADERS, "abc", false));
        assertNotEquals(base, http("api", 200, List.of(), "abc", false));
        assertNotEquals(base, http("api", 200, HEADERS, "abd", false));
        assertNotEquals(base, http("api", 200, HEADERS, "abc", true));
        assertNotEquals(base, (Object) "api");
        assertNotEquals(base, null);
    }

    @Test
    void httpOutcomeHashesDifferWithTheirContent() {
        // Not required by the contract, but a constant hash would be a useless one.
        assertNotEquals(http("api", 200, HEADERS, "abc", false).hashCode(), http("api", 200, HEADERS, "xyz", false).hashCode());
    }

    @Test
    void anHttpOutcomePrintsTheBodySizeNeverTheBody() {
        assertEquals("HttpResponseOutcome[target=api, status=200, body=6 bytes, truncated=true]",
                http("api", 200, HEADERS, "secret", true).toString());
    }

    private static SshExitOutcome ssh(String host, OptionalInt status, Optional<String> signal, String out, boolean outCut,
            String err, boolean errCut, String fingerprint) {
        return new SshExitOutcome(host, status, signal, bytes(out), outCut, bytes(err), errCut, fingerprint);
    }

    private static SshExitOutcome base() {
        return ssh("web", OptionalInt.of(0), Optional.empty(), "out", false, "err", false, "SHA256:k");
    }

    @Test
    void sshStreamsAreCopiedInAndOut() {
        byte[] out = bytes("out");
        byte[] err = bytes("err");
        SshExitOutcome o = new SshExitOutcome("web", OptionalInt.of(0), Optional.empty(), out, false, err, false, "SHA256:k");
        out[0] = 'X';
        err[0] = 'X';
        assertArrayEquals(bytes("out"), o.stdout());
        assertArrayEquals(bytes("err"), o.stderr());
        o.stdout()[0] = 'Y';
        o.stderr()[0] = 'Y';
        assertArrayEquals(bytes("out"), o.stdout());
        assertArrayEquals(bytes("err"), o.stderr());
    }

    @Test
    void sshOutcomesAreEqualExactlyWhenEveryFieldIs() {
        SshExitOutcome base = base();
        assertEquals(base, base());
        assertEquals(base.hashCode(), base().hashCode());
        assertEquals(base, base);
        assertNotEquals(base, ssh("db", OptionalInt.of(0), Optional.empty(), "out", false, "err", false, "SHA256:k"));
        assertNotEquals(base, ssh("web", OptionalInt.of(1), Optional.empty(), "out", false, "err", false, "SHA256:k"));
        assertNotEquals(base, ssh("web", OptionalInt.of(0), Optional.of("TERM"), "out", false, "err", false, "SHA256:k"));
        assertNotEquals(base, ssh("web", OptionalInt.of(0), Optional.empty(), "OUT", false, "err", false, "SHA256:k"));
        assertNotEquals(base, ssh("web", OptionalInt.of(0), Optional.empty(), "out", true, "err", false, "SHA256:k"));
        assertNotEquals(base, ssh("web", OptionalInt.of(0), Optional.empty(), "out", false, "ERR", false, "SHA256:k"));
        assertNotEquals(base, ssh("web", OptionalInt.of(0), Optional.empty(), "out", false, "err", true, "SHA256:k"));
        assertNotEquals(base, ssh("web", OptionalInt.of(0), Optional.empty(), "out", false, "err", false, "SHA256:other"));
        assertNotEquals(base, (Object) "web");
        assertNotEquals(base, null);
    }

    @Test
    void sshOutcomeHashesDifferWithTheirContent() {
        assertNotEquals(base().hashCode(),
                ssh("web", OptionalInt.of(0), Optional.empty(), "other", false, "err", false, "SHA256:k").hashCode());
    }

    @Test
    void anSshOutcomePrintsStreamSizesNeverTheirBytes() {
        assertEquals("SshExitOutcome[host=web, exitStatus=OptionalInt[0], exitSignal=Optional.empty, stdout=3 bytes, stderr=3 bytes]",
                base().toString());
    }
}
