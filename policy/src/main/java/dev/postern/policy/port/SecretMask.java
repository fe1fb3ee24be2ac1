package dev.postern.policy.port;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Replaces every occurrence of a set of secret byte strings with {@code ****}, in bodies, streams,
 * header values and messages; every executor runs what it returns through one, so a target that
 * echoes a credential never hands it to the agent (executor contract C08). Besides the exact bytes
 * given (the executor adds the parts and encoded forms it itself produced, such as a Basic
 * credential's password alone and its Base64), it recognises each secret in the forms a target
 * commonly turns it into: ASCII letters in any case, and any of its bytes percent-encoded (upper or
 * lower hex, {@code %XX} or the byte itself, so a URL, a query or a form body echo is masked) with
 * {@code +} for a space as form encoding writes it. In short, a run of text is masked when it
 * percent-decodes ({@code +} as space) to the secret up to the case of ASCII letters. Other
 * transformations (Base64 the executor did not make, HTML entities, JSON unicode escapes,
 * reversing) are not recognised. Immutable and thread-safe.
 *
 * <p>Rules that keep the mask from becoming an oracle. A secret shorter than
 * {@value #MIN_SECRET_BYTES} bytes is not masked: it occurs by chance in ordinary text, so masking
 * it would mangle bodies and reveal it by where the stars fall as surely as echoing it would; the
 * floor counts the secret's own bytes, not the longer forms it is matched in. Only whole matches
 * are masked, so stars show no more than "this decodes to the secret up to case": an agent that
 * controls an echo can test a whole guess per call, as it could against exact matching, and case
 * folding lets one probe cover a guess in all its letter cases (against a secret with k letters,
 * up to 2^k fewer probes: a secret guessable that way is weak regardless). Folding also masks text
 * that differs from a secret only in case, which for secrets of 4 bytes or more is as rare as the
 * secret itself, and loses nothing the agent was owed. And a cut body should not show whether its
 * tail starts a secret (masking only a matching tail lets an agent that controls an echo and the cut
 * learn a secret byte by byte): {@link #maskCut} reads {@link #lookahead()} bytes past the cut (enough
 * for the longest form, every byte percent-encoded) and masks a straddling secret whole, so its
 * answer depends on whole matches only. {@code mask(body, true)} remains for callers that cannot
 * read past the cut, with that limit.
 */
public final class SecretMask {
    public static final String STARS = "****";
    /** Secrets shorter than this are not masked (see the type's comment). */
    public static final int MIN_SECRET_BYTES = 4;
    private static final byte[] STAR_BYTES = STARS.getBytes(StandardCharsets.US_ASCII);
    /** No match at this position. */
    private static final int NONE = -1;
    /** The input ended while a match was still possible (only when matching up to a cut). */
    private static final int PREFIX = -2;

    private final List<byte[]> needles;
    private final boolean[] firstBytes = new boolean[256];

    public SecretMask(Collection<byte[]> secrets) {
        List<byte[]> sorted = new ArrayList<>();
        for (byte[] s : secrets) {
            if (s.length >= MIN_SECRET_BYTES && sorted.stream().noneMatch(n -> Arrays.equals(n, s))) {
                sorted.add(s.clone());
            }
        }
        // Longest first, so a secret that contains another is masked whole.
        sorted.sort(Comparator.comparingInt((byte[] b) -> b.length).reversed());
        this.needles = List.copyOf(sorted);
        for (byte[] n : needles) {
            int first = n[0] & 0xff;
            firstBytes[first] = true;
            firstBytes[fold(first)] = true;
            firstBytes[upper(first)] = true;
            firstBytes['%'] = true;
            if (first == ' ') {
                firstBytes['+'] = true;
            }
        }
    }

    /** A mask over every secret the store can resolve now. */
    public static SecretMask of(CredentialStore credentials) {
        List<byte[]> secrets = new ArrayList<>();
        for (Secret s : credentials.all()) {
            secrets.add(s.reveal());
        }
        return new SecretMask(secrets);
    }

    /**
     * Masks {@code body}. When {@code cutShort} (the body was truncated and nothing after the cut
     * is at hand), a tail that is the start of a secret (in any form the mask recognises) is masked
     * too, so a cut cannot show a secret's prefix; but whether the tail was masked does show, which
     * an agent that controls an echo and the cut could probe byte by byte: prefer {@link #maskCut}
     * wherever the bytes after the cut can be read.
     */
    public byte[] mask(byte[] body, boolean cutShort) {
        if (needles.isEmpty()) {
            return body;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
        int i = 0;
        scan:
        while (i < body.length) {
            if (!firstBytes[body[i] & 0xff]) {
                out.write(body[i++]);
                continue;
            }
            boolean prefix = false;
            for (byte[] n : needles) {
                int end = matchEnd(body, i, body.length, n);
                if (end >= 0) {
                    out.write(STAR_BYTES, 0, STAR_BYTES.length);
                    i = end;
                    continue scan;
                }
                prefix |= end == PREFIX;
            }
            if (cutShort && prefix) {
                out.write(STAR_BYTES, 0, STAR_BYTES.length);
                break;
            }
            out.write(body[i++]);
        }
        return out.toByteArray();
    }

    /**
     * Masks the first {@code keep} bytes of {@code window}, a body cut at {@code keep} whose next
     * bytes (up to {@link #lookahead()} of them, fewer only where the body ended) are read only to
     * recognise a secret that starts before the cut: such a secret is masked whole, and what the
     * agent sees depends only on whole matches, never on whether the cut fell into a secret. The
     * result is at most {@code keep} + 3 bytes long (the stars of a secret the cut falls into less
     * than 4 bytes after its start).
     */
    public byte[] maskCut(byte[] window, int keep) {
        if (keep < 0 || keep > window.length) {
            throw new IllegalArgumentException("keep must be 0.." + window.length + ", got " + keep);
        }
        if (needles.isEmpty()) {
            return Arrays.copyOf(window, keep);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(keep);
        int i = 0;
        scan:
        while (i < keep) {
            if (firstBytes[window[i] & 0xff]) {
                for (byte[] n : needles) {
                    int end = matchEnd(window, i, window.length, n);
                    if (end >= 0) {
                        out.write(STAR_BYTES, 0, STAR_BYTES.length);
                        i = end;
                        continue scan;
                    }
                }
            }
            out.write(window[i++]);
        }
        return out.toByteArray();
    }

    /**
     * How many bytes past a cut decide whether a secret starts before it: the longest form of the
     * longest secret (every byte percent-encoded, three bytes each) less one.
     */
    public int lookahead() {
        return needles.isEmpty() ? 0 : 3 * needles.get(0).length - 1;
    }

    /**
     * Masks a header value or a message: its UTF-8 bytes, and each run of characters up to U+00FF
     * as ISO-8859-1 bytes (how a header value may arrive), with the same forms as bodies.
     */
    public String mask(String text) {
        if (needles.isEmpty()) {
            return text;
        }
        StringBuilder latin = new StringBuilder(text.length());
        int run = 0;
        for (int k = 0; k <= text.length(); k++) {
            if (k == text.length() || text.charAt(k) > 0xff) {
                byte[] bytes = text.substring(run, k).getBytes(StandardCharsets.ISO_8859_1);
                latin.append(new String(mask(bytes, false), StandardCharsets.ISO_8859_1));
                if (k < text.length()) {
                    latin.append(text.charAt(k));
                }
                run = k + 1;
            }
        }
        String once = latin.toString();
        byte[] utf8 = once.getBytes(StandardCharsets.UTF_8);
        byte[] masked = mask(utf8, false);
        // Decoding only what changed keeps text the mask did not touch exactly as it was.
        return Arrays.equals(utf8, masked) ? once : new String(masked, StandardCharsets.UTF_8);
    }

    /**
     * The end of the longest run of {@code body} from {@code at} (before {@code limit}) that
     * percent-decodes, {@code +} as space, to {@code needle} up to ASCII case; {@link #PREFIX} when
     * no run does but {@code limit} cut one that still could; else {@link #NONE}. Each needle byte is
     * one body byte or a {@code %XX} triple, so the candidate ends after k needle bytes lie within
     * 3k bytes of {@code at}; they are tracked as a set, which keeps the work linear in the needle.
     */
    private static int matchEnd(byte[] body, int at, int limit, byte[] needle) {
        // Fast path: byte for byte (up to case, + for space) until a '%' needs the general match.
        int p = at;
        for (byte nb : needle) {
            if (p >= limit) {
                return PREFIX;
            }
            int b = body[p++] & 0xff;
            if (b == '%') {
                return p - 1 == at && cannotStart(body, at, limit, needle[0]) ? NONE : matchEncoded(body, at, limit, needle);
            }
            int want = fold(nb & 0xff);
            if (fold(b) != want && !(b == '+' && want == ' ')) {
                return NONE;
            }
        }
        return p;
    }

    /** {@link #matchEnd} where a '%' lies on the way: every decoding of the run is followed. */
    private static int matchEncoded(byte[] body, int at, int limit, byte[] needle) {
        int span = 3 * needle.length + 1;
        boolean[] here = new boolean[span];
        here[0] = true;
        int hi = 0;
        boolean cut = false;
        for (byte nb : needle) {
            int want = fold(nb & 0xff);
            boolean[] next = new boolean[span];
            int nextHi = -1;
            for (int o = 0; o <= hi; o++) {
                if (!here[o]) {
                    continue;
                }
                int p = at + o;
                if (p >= limit) {
                    cut = true;
                    continue;
                }
                int b = body[p] & 0xff;
                if (fold(b) == want || (b == '+' && want == ' ')) {
                    next[o + 1] = true;
                    nextHi = Math.max(nextHi, o + 1);
                }
                if (b == '%') {
                    if (p + 2 >= limit) {
                        cut |= p + 1 >= limit || hex(body[p + 1]) >= 0;
                    } else if (hex(body[p + 1]) >= 0 && hex(body[p + 2]) >= 0
                            && fold(hex(body[p + 1]) << 4 | hex(body[p + 2])) == want) {
                        next[o + 3] = true;
                        nextHi = Math.max(nextHi, o + 3);
                    }
                }
            }
            if (nextHi < 0) {
                return cut ? PREFIX : NONE;
            }
            here = next;
            hi = nextHi;
        }
        return at + hi;
    }

    /** True when the escape {@code %XX} at {@code at} is whole and decodes to another byte than {@code first}, itself no '%'. */
    private static boolean cannotStart(byte[] body, int at, int limit, byte first) {
        if (first == '%' || at + 2 >= limit || hex(body[at + 1]) < 0 || hex(body[at + 2]) < 0) {
            return false;
        }
        return fold(hex(body[at + 1]) << 4 | hex(body[at + 2])) != fold(first & 0xff);
    }

    /** The value of a hex digit (either case), or -1. */
    private static int hex(byte b) {
        if (b >= '0' && b <= '9') {
            return b - '0';
        }
        if (b >= 'a' && b <= 'f') {
            return b - 'a' + 10;
        }
        if (b >= 'A' && b <= 'F') {
            return b - 'A' + 10;
        }
        return -1;
    }

    /** An ASCII upper-case letter as lower case; every other byte as it is. */
    private static int fold(int b) {
        return b >= 'A' && b <= 'Z' ? b + 32 : b;
    }

    /** An ASCII lower-case letter as upper case; every other byte as it is. */
    private static int upper(int b) {
        return b >= 'a' && b <= 'z' ? b - 32 : b;
    }
}
