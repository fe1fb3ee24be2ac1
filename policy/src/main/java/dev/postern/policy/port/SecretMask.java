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
 * echoes a credential never hands it to the agent (executor contract C08). It matches the exact
 * bytes given (the executor adds the parts and encoded forms it itself produced, such as a Basic
 * credential's password alone and its Base64); other encodings a target may choose are not
 * recognised. Immutable and thread-safe.
 *
 * <p>Two rules keep the mask from becoming an oracle. A secret shorter than
 * {@value #MIN_SECRET_BYTES} bytes is not masked: it occurs by chance in ordinary text, so masking
 * it would mangle bodies and reveal it by where the stars fall as surely as echoing it would. And
 * a cut body should not show whether its tail starts a secret (masking only a matching tail lets an
 * agent that controls an echo and the cut learn a secret byte by byte): {@link #maskCut} reads
 * {@link #lookahead()} bytes past the cut and masks a straddling secret whole, so its answer
 * depends on whole matches only. {@code mask(body, true)} remains for callers that cannot read past
 * the cut, with that limit.
 */
public final class SecretMask {
    public static final String STARS = "****";
    /** Secrets shorter than this are not masked (see the type's comment). */
    public static final int MIN_SECRET_BYTES = 4;
    private static final byte[] STAR_BYTES = STARS.getBytes(StandardCharsets.US_ASCII);

    private final List<byte[]> needles;
    private final List<String> textNeedles;
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
        List<String> texts = new ArrayList<>();
        for (byte[] n : needles) {
            addText(texts, new String(n, StandardCharsets.UTF_8));
            addText(texts, new String(n, StandardCharsets.ISO_8859_1));
            firstBytes[n[0] & 0xff] = true;
        }
        this.textNeedles = List.copyOf(texts);
    }

    /** A mask over every secret the store can resolve now. */
    public static SecretMask of(CredentialStore credentials) {
        List<byte[]> secrets = new ArrayList<>();
        for (Secret s : credentials.all()) {
            secrets.add(s.reveal());
        }
        return new SecretMask(secrets);
    }

    private static void addText(List<String> texts, String s) {
        if (!texts.contains(s)) {
            texts.add(s);
        }
    }

    /**
     * Masks {@code body}. When {@code cutShort} (the body was truncated and nothing after the cut
     * is at hand), a tail that is the start of a secret is masked too, so a cut cannot show a
     * secret's prefix; but whether the tail was masked does show, which an agent that controls an
     * echo and the cut could probe byte by byte: prefer {@link #maskCut} wherever the bytes after
     * the cut can be read.
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
            for (byte[] n : needles) {
                if (matches(body, i, n, n.length)) {
                    out.write(STAR_BYTES, 0, STAR_BYTES.length);
                    i += n.length;
                    continue scan;
                }
            }
            if (cutShort) {
                int left = body.length - i;
                for (byte[] n : needles) {
                    if (left < n.length && matches(body, i, n, left)) {
                        out.write(STAR_BYTES, 0, STAR_BYTES.length);
                        break scan;
                    }
                }
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
                    if (matches(window, i, n, n.length)) {
                        out.write(STAR_BYTES, 0, STAR_BYTES.length);
                        i += n.length;
                        continue scan;
                    }
                }
            }
            out.write(window[i++]);
        }
        return out.toByteArray();
    }

    /** How many bytes past a cut decide whether a secret starts before it: the longest secret's length - 1. */
    public int lookahead() {
        return needles.isEmpty() ? 0 : needles.get(0).length - 1;
    }

    /** Masks a header value or a message, matching each secret as UTF-8 and as ISO-8859-1 text. */
    public String mask(String text) {
        String out = text;
        for (String n : textNeedles) {
            out = out.replace(n, STARS);
        }
        return out;
    }

    private static boolean matches(byte[] body, int at, byte[] needle, int length) {
        if (at + length > body.length) {
            return false;
        }
        for (int k = 0; k < length; k++) {
            if (body[at + k] != needle[k]) {
                return false;
            }
        }
        return true;
    }
}
