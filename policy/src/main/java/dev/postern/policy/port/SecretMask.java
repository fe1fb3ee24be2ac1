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
 * echoes a credential never hands it to the agent (executor contract C08). It matches the exact bytes given (the executor adds encoded forms it itself
 * produced, such as the Base64 of a Basic credential); other encodings a target may choose are not
 * recognised. Immutable and thread-safe.
 */
public final class SecretMask {
    public static final String STARS = "****";
    private static final byte[] STAR_BYTES = STARS.getBytes(StandardCharsets.US_ASCII);

    private final List<byte[]> needles;
    private final List<String> textNeedles;
    private final boolean[] firstBytes = new boolean[256];

    public SecretMask(Collection<byte[]> secrets) {
        List<byte[]> sorted = new ArrayList<>();
        for (byte[] s : secrets) {
            if (s.length > 0 && sorted.stream().noneMatch(n -> Arrays.equals(n, s))) {
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
     * Masks {@code body}. When {@code cutShort} (the body was truncated), a tail that is the start
     * of a secret is masked too, so a cut cannot leak a secret's prefix.
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
