package dev.postern.protocol.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.protocol.approval.RequestStateCodec.Problem;
import dev.postern.protocol.approval.RequestStateCodec.Redemption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** A requestState is an approval only when genuine, unexpired, unused and minted for exactly this tool and action. */
class RequestStateCodecTest {
    private static final String A = "sha256:" + "a".repeat(64);
    private static final String B = "sha256:" + "b".repeat(64);
    private static final Pattern BASE64URL_DOT = Pattern.compile("[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");

    private final SettableClock clock = new SettableClock();
    private final RequestStateCodec codec = RequestStateCodec.withFreshKey(Duration.ofSeconds(120), clock, 100);

    private static Problem problem(Redemption r) {
        return assertInstanceOf(Redemption.Refused.class, r).problem();
    }

    @Test
    void aMintedStateIsRedeemedOnceForItsToolAndAction() {
        String state = codec.mint("http_request", A);
        assertTrue(BASE64URL_DOT.matcher(state).matches(), state);
        assertInstanceOf(Redemption.Redeemed.class, codec.redeem(state, "http_request", A));
        assertEquals(Problem.REPLAYED, problem(codec.redeem(state, "http_request", A)));
    }

    @Test
    void twoStatesForTheSameActionAreDifferentAndEachRedeemsOnce() {
        String one = codec.mint("http_request", A);
        String two = codec.mint("http_request", A);
        assertNotEquals(one, two);
        assertInstanceOf(Redemption.Redeemed.class, codec.redeem(two, "http_request", A));
        assertInstanceOf(Redemption.Redeemed.class, codec.redeem(one, "http_request", A));
    }

    @Test
    void aStateMovedToAnotherActionOrToolIsRefusedAndStaysUnused() {
        String state = codec.mint("http_request", A);
        assertEquals(Problem.OTHER_ACTION, problem(codec.redeem(state, "http_request", B)));
        assertEquals(Problem.OTHER_TOOL, problem(codec.redeem(state, "ssh_exec", A)));
        assertInstanceOf(Redemption.Redeemed.class, codec.redeem(state, "http_request", A));
    }

    @Test
    void anExpiredStateIsRefusedAndOneAtItsLastMillisecondIsNot() {
        String late = codec.mint("http_request", A);
        String edge = codec.mint("http_request", A);
        clock.advance(Duration.ofSeconds(120));
        assertInstanceOf(Redemption.Redeemed.class, codec.redeem(edge, "http_request", A));
        clock.advance(Duration.ofMillis(1));
        assertEquals(Problem.EXPIRED, problem(codec.redeem(late, "http_request", A)));
    }

    @Test
    void everySingleCharacterChangeIsRefused() {
        String state = codec.mint("http_request", A);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
        for (int i = 0; i < state.length(); i++) {
            for (char c : new char[] {alphabet.charAt((alphabet.indexOf(state.charAt(i)) + 1) % alphabet.length()),
                                      alphabet.charAt((alphabet.indexOf(state.charAt(i)) + 17) % alphabet.length())}) {
                String changed = state.substring(0, i) + c + state.substring(i + 1);
                Redemption r = codec.redeem(changed, "http_request", A);
                assertInstanceOf(Redemption.Refused.class, r, "changed at " + i + ": " + changed);
            }
        }
        assertInstanceOf(Redemption.Redeemed.class, codec.redeem(state, "http_request", A), "the original is still unused");
    }

    @Test
    void aChangedPayloadCharacterIsTamperingAndAChangedTrailingBitIsMalformed() {
        String state = codec.mint("http_request", A);
        int dot = state.indexOf('.');
        char c = state.charAt(5);
        String tampered = state.substring(0, 5) + (c == 'A' ? 'B' : 'A') + state.substring(6);
        assertEquals(Problem.TAMPERED, problem(codec.redeem(tampered, "http_request", A)));
        // The MAC is 32 bytes: its last base64url character carries 4 unused bits.
        char last = state.charAt(state.length() - 1);
        String alternative = Base64.getUrlEncoder().withoutPadding().encodeToString(
                Base64.getUrlDecoder().decode(state.substring(dot + 1)));
        assertEquals(state.substring(dot + 1), alternative);
        String sameBytes = state.substring(0, state.length() - 1) + (char) (last ^ 1);
        Redemption r = codec.redeem(sameBytes, "http_request", A);
        assertInstanceOf(Redemption.Refused.class, r);
    }

    @Test
    void aStateFromAnotherProcessIsTampering() {
        RequestStateCodec other = RequestStateCodec.withFreshKey(Duration.ofSeconds(120), clock, 100);
        assertEquals(Problem.TAMPERED, problem(codec.redeem(other.mint("http_request", A), "http_request", A)));
    }

    @Test
    void garbageIsMalformed() {
        for (String s : new String[] {"", ".", "abc", "abc.", ".abc", "a.b.c", "a+b.c/d", "YQ==.YQ==", "x".repeat(2000)}) {
            assertEquals(Problem.MALFORMED, problem(codec.redeem(s, "http_request", A)), s);
        }
        assertEquals(Problem.MALFORMED, problem(codec.redeem(null, "http_request", A)));
    }

    @Test
    void redeemedStatesAreForgottenAfterExpiryAndTheSetIsBounded() {
        RequestStateCodec small = RequestStateCodec.withFreshKey(Duration.ofSeconds(10), clock, 2);
        assertInstanceOf(Redemption.Redeemed.class, small.redeem(small.mint("t", A), "t", A));
        assertInstanceOf(Redemption.Redeemed.class, small.redeem(small.mint("t", A), "t", A));
        String third = small.mint("t", A);
        assertEquals(Problem.FULL, problem(small.redeem(third, "t", A)));
        assertEquals(2, small.remembered());
        clock.advance(Duration.ofSeconds(11));
        assertEquals(0, small.remembered());
        String fresh = small.mint("t", A);
        assertInstanceOf(Redemption.Redeemed.class, small.redeem(fresh, "t", A));
        assertEquals(Problem.REPLAYED, problem(small.redeem(fresh, "t", A)));
    }

    @Test
    void onlyAToolNameAndADigestCanBeBound() {
        assertThrows(IllegalArgumentException.class, () -> codec.mint("bad\nname", A));
        assertThrows(IllegalArgumentException.class, () -> codec.mint("http_request", "md5:00"));
    }

    @Test
    void aKeyOfThirtyTwoBytesIsEnoughAndOneByteLessIsRefused() {
        RequestStateCodec exact = new RequestStateCodec(new byte[32], clock, Duration.ofSeconds(1), 1, new java.security.SecureRandom());
        assertInstanceOf(Redemption.Redeemed.class, exact.redeem(exact.mint("t", A), "t", A));
        assertEquals("the key must be at least 32 bytes", assertThrows(IllegalArgumentException.class,
                () -> new RequestStateCodec(new byte[31], clock, Duration.ofSeconds(1), 1, new java.security.SecureRandom())).getMessage());
    }

    @Test
    void aStateAtTheLengthLimitIsReadAndOneCharacterMoreIsMalformedUnread() {
        // Canonical base64url on both sides of the dot, and no genuine MAC: read, it is tampering.
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
        String atLimit = encoder.encodeToString(new byte[735]) + '.' + encoder.encodeToString(new byte[32]);
        assertEquals(RequestStateCodec.MAX_STATE_LENGTH, atLimit.length());
        assertEquals(Problem.TAMPERED, problem(codec.redeem(atLimit, "http_request", A)));
        String overLimit = encoder.encodeToString(new byte[735]) + '.' + encoder.encodeToString(new byte[33]);
        assertEquals(RequestStateCodec.MAX_STATE_LENGTH + 1, overLimit.length());
        assertEquals(Problem.MALFORMED, problem(codec.redeem(overLimit, "http_request", A)));
    }

    @Test
    void aStateRedeemedAtItsLastMillisecondCannotBeRedeemedAgainInThatMillisecond() {
        String state = codec.mint("http_request", A);
        clock.advance(Duration.ofSeconds(120));
        assertInstanceOf(Redemption.Redeemed.class, codec.redeem(state, "http_request", A));
        assertEquals(Problem.REPLAYED, problem(codec.redeem(state, "http_request", A)),
                "a used state is forgotten only once it can no longer be redeemed");
    }

    @Test
    void redeemingForgetsExpiredStatesSoTheyMakeRoomForNewOnes() {
        RequestStateCodec small = RequestStateCodec.withFreshKey(Duration.ofSeconds(10), clock, 1);
        assertInstanceOf(Redemption.Redeemed.class, small.redeem(small.mint("t", A), "t", A));
        clock.advance(Duration.ofSeconds(11));
        assertInstanceOf(Redemption.Redeemed.class, small.redeem(small.mint("t", A), "t", A), "the expired one no longer counts");
    }

    @Test
    void redeemingTakesOnlyAToolNameAndADigest() {
        String state = codec.mint("http_request", A);
        assertThrows(IllegalArgumentException.class, () -> codec.redeem(state, "bad\nname", A));
        assertThrows(IllegalArgumentException.class, () -> codec.redeem(state, "http_request", "md5:00"));
        assertInstanceOf(Redemption.Redeemed.class, codec.redeem(state, "http_request", A), "a refused call marks nothing");
    }

    @Test
    void aCodecWithAFreshKeyKeepsItsLifetimeAndRedeemsWhatItMints() {
        RequestStateCodec fresh = RequestStateCodec.withFreshKey(Duration.ofMinutes(5));
        assertEquals(Duration.ofMinutes(5), fresh.lifetime());
        assertInstanceOf(Redemption.Redeemed.class, fresh.redeem(fresh.mint("ssh_exec", B), "ssh_exec", B));
    }

    @Test
    void aGenuineStateWhosePayloadIsNotTheVersionedFivePartFormIsMalformed() throws Exception {
        // Only the key's holder can make these: the form is checked after the MAC, as a second line.
        byte[] key = new byte[32];
        RequestStateCodec known = new RequestStateCodec(key, clock, Duration.ofSeconds(120), 10, new java.security.SecureRandom());
        long expiry = clock.millis() + 1000;
        for (String payload : new String[] {
                "postern-approval-v1\nt\n" + A + "\n" + expiry,
                "postern-approval-v1\nt\n" + A + "\n" + expiry + "\nnonce\nextra",
                "postern-approval-v0\nt\n" + A + "\n" + expiry + "\nnonce",
                "postern-approval-v1\nt\n" + A + "\nsoon\nnonce"}) {
            assertEquals(Problem.MALFORMED, problem(known.redeem(signed(key, payload), "t", A)), payload);
        }
        assertInstanceOf(Redemption.Redeemed.class, known.redeem(signed(key, "postern-approval-v1\nt\n" + A + "\n" + expiry + "\nnonce"), "t", A),
                "the same construction with the right form is genuine");
    }

    private static String signed(byte[] key, String payload) throws Exception {
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
        mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
        byte[] bytes = payload.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        Base64.Encoder encoder = Base64.getUrlEncoder().withoutPadding();
        return encoder.encodeToString(bytes) + '.' + encoder.encodeToString(mac.doFinal(bytes));
    }

    /** A clock the test moves by hand. */
    static final class SettableClock extends Clock {
        private Instant now = Instant.parse("2026-12-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
