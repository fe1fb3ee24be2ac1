package dev.postern.protocol.approval;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The stateless era's {@code requestState} for an approval: {@code base64url(payload) "." base64url(mac)},
 * where the payload binds the tool, the digest of the exact action, an expiry and a random nonce,
 * and the MAC is HMAC-SHA256 under a key drawn from {@link SecureRandom} when the codec is made (one
 * per gateway process, never written anywhere). {@link #redeem} accepts a state once: the nonces of
 * redeemed states are kept until they expire, at most {@code maxRedeemed} of them.
 *
 * <p>The specification calls {@code requestState} attacker-controlled; every way a state can be
 * wrong is reported as its own {@link Problem} (for tests and the journal), and all of them mean
 * {@code approval.invalid} to the agent. Thread-safe.
 */
public final class RequestStateCodec {
    /** The longest state accepted, in characters; a minted one is about 200. */
    public static final int MAX_STATE_LENGTH = 1024;
    /** How many redeemed, unexpired states are remembered before redeeming fails closed. */
    public static final int DEFAULT_MAX_REDEEMED = 10_000;

    private static final String VERSION = "postern-approval-v1";
    private static final Pattern TOOL = Pattern.compile("[A-Za-z0-9_]{1,64}");
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    private final SecretKeySpec key;
    private final Clock clock;
    private final Duration lifetime;
    private final int maxRedeemed;
    private final SecureRandom random;
    private final Map<String, Long> redeemed = new ConcurrentHashMap<>();

    /** Why a state is not an approval. Every problem maps to the rule {@code approval.invalid}. */
    public enum Problem {
        /** Not two canonical base64url parts, too long, or no payload this codec writes. */
        MALFORMED,
        /** The MAC does not match: a character changed, or another process (another key) minted it. */
        TAMPERED,
        /** Past its expiry. */
        EXPIRED,
        /** Already redeemed once. */
        REPLAYED,
        /** Minted for another tool. */
        OTHER_TOOL,
        /** Minted for another action (another digest). */
        OTHER_ACTION,
        /** Too many redeemed states are still unexpired to remember one more; fails closed. */
        FULL
    }

    /** What {@link #redeem} found. */
    public sealed interface Redemption {
        /** The state is genuine, unexpired, minted for this tool and action, and now used up. */
        record Redeemed() implements Redemption {
        }

        record Refused(Problem problem) implements Redemption {
            public Refused {
                Objects.requireNonNull(problem, "problem");
            }
        }
    }

    RequestStateCodec(byte[] key, Clock clock, Duration lifetime, int maxRedeemed, SecureRandom random) {
        if (key.length < 32) {
            throw new IllegalArgumentException("the key must be at least 32 bytes");
        }
        this.key = new SecretKeySpec(key.clone(), "HmacSHA256");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.lifetime = Objects.requireNonNull(lifetime, "lifetime");
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("lifetime must be positive");
        }
        if (maxRedeemed < 1) {
            throw new IllegalArgumentException("maxRedeemed must be positive");
        }
        this.maxRedeemed = maxRedeemed;
        this.random = Objects.requireNonNull(random, "random");
    }

    /** A codec with a fresh random key, the system clock, and states that live {@code lifetime}. */
    public static RequestStateCodec withFreshKey(Duration lifetime) {
        return withFreshKey(lifetime, Clock.systemUTC(), DEFAULT_MAX_REDEEMED);
    }

    /** As {@link #withFreshKey(Duration)}, with a clock and a bound of the caller's (tests). */
    public static RequestStateCodec withFreshKey(Duration lifetime, Clock clock, int maxRedeemed) {
        SecureRandom random = new SecureRandom();
        byte[] key = new byte[32];
        random.nextBytes(key);
        return new RequestStateCodec(key, clock, lifetime, maxRedeemed, random);
    }

    /** How long a minted state stays redeemable. */
    public Duration lifetime() {
        return lifetime;
    }

    /** A new state for one approval of {@code actionDigest} through {@code tool}. */
    public String mint(String tool, String actionDigest) {
        requireTool(tool);
        requireDigest(actionDigest);
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        long expiry = clock.millis() + lifetime.toMillis();
        String payload = VERSION + '\n' + tool + '\n' + actionDigest + '\n' + expiry + '\n' + ENCODER.encodeToString(nonce);
        byte[] bytes = payload.getBytes(StandardCharsets.US_ASCII);
        return ENCODER.encodeToString(bytes) + '.' + ENCODER.encodeToString(mac(bytes));
    }

    /**
     * Checks {@code state} in this order — form, MAC, expiry, tool, action, first use — and, if all
     * hold, marks it used. A refused state is not marked.
     */
    public Redemption redeem(String state, String tool, String actionDigest) {
        requireTool(tool);
        requireDigest(actionDigest);
        if (state == null || state.length() > MAX_STATE_LENGTH) {
            return refused(Problem.MALFORMED);
        }
        int dot = state.indexOf('.');
        if (dot <= 0 || dot != state.lastIndexOf('.') || dot == state.length() - 1) {
            return refused(Problem.MALFORMED);
        }
        byte[] payload = canonicalBase64(state.substring(0, dot));
        byte[] tag = canonicalBase64(state.substring(dot + 1));
        if (payload == null || tag == null) {
            return refused(Problem.MALFORMED);
        }
        if (!MessageDigest.isEqual(mac(payload), tag)) {
            return refused(Problem.TAMPERED);
        }
        String[] parts = new String(payload, StandardCharsets.US_ASCII).split("\n", -1);
        if (parts.length != 5 || !parts[0].equals(VERSION)) {
            return refused(Problem.MALFORMED);
        }
        long expiry;
        try {
            expiry = Long.parseLong(parts[3]);
        } catch (NumberFormatException e) {
            return refused(Problem.MALFORMED);
        }
        long now = clock.millis();
        if (now > expiry) {
            return refused(Problem.EXPIRED);
        }
        if (!parts[1].equals(tool)) {
            return refused(Problem.OTHER_TOOL);
        }
        if (!parts[2].equals(actionDigest)) {
            return refused(Problem.OTHER_ACTION);
        }
        prune(now);
        String nonce = parts[4];
        if (redeemed.putIfAbsent(nonce, expiry) != null) {
            return refused(Problem.REPLAYED);
        }
        if (redeemed.size() > maxRedeemed) {
            redeemed.remove(nonce);
            return refused(Problem.FULL);
        }
        return new Redemption.Redeemed();
    }

    /** How many redeemed states are remembered now (they are forgotten once expired). */
    int remembered() {
        prune(clock.millis());
        return redeemed.size();
    }

    /** Forgets states that can no longer be redeemed anyway: expiry is checked before first use. */
    private void prune(long now) {
        for (Iterator<Long> it = redeemed.values().iterator(); it.hasNext(); ) {
            if (it.next() < now) {
                it.remove();
            }
        }
    }

    private byte[] mac(byte[] payload) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac.doFinal(payload);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every Java platform has HmacSHA256", e);
        }
    }

    /** The bytes, if {@code text} is exactly how this codec would have encoded them; else null. */
    private static byte[] canonicalBase64(String text) {
        byte[] bytes;
        try {
            bytes = DECODER.decode(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
        // Unused low bits of the last character (and padding) would decode to the same bytes:
        // only the one canonical spelling is accepted, so no two strings are the same state.
        return ENCODER.encodeToString(bytes).equals(text) ? bytes : null;
    }

    private static Redemption refused(Problem p) {
        return new Redemption.Refused(p);
    }

    private static void requireTool(String tool) {
        if (tool == null || !TOOL.matcher(tool).matches()) {
            throw new IllegalArgumentException("tool must be a tool name, got " + tool);
        }
    }

    private static void requireDigest(String digest) {
        if (digest == null || !DIGEST.matcher(digest).matches()) {
            throw new IllegalArgumentException("actionDigest must be sha256: and 64 hex digits");
        }
    }

}
