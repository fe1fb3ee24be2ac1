package dev.postern.policy.port;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The mask in text: a non-ASCII secret is found both as UTF-8 text and as the ISO-8859-1 reading of
 * its bytes (how a header value may arrive), and an empty secret is ignored rather than matching
 * everywhere.
 */
class SecretMaskTextFormsTest {
    private static final byte[] SECRET = "pässwörd".getBytes(StandardCharsets.UTF_8);

    @Test
    void aNonAsciiSecretIsMaskedAsUtf8Text() {
        SecretMask mask = new SecretMask(List.of(SECRET));
        assertEquals("token=**** end", mask.mask("token=pässwörd end"));
    }

    @Test
    void aNonAsciiSecretIsMaskedAsItsIso88591Reading() {
        SecretMask mask = new SecretMask(List.of(SECRET));
        String latin1 = new String(SECRET, StandardCharsets.ISO_8859_1);
        assertEquals("token=**** end", mask.mask("token=" + latin1 + " end"));
    }

    @Test
    void anEmptySecretIsIgnoredAndTheOthersStillMasked() {
        // "abcd": secrets under SecretMask's 4-byte floor are not masked at all.
        SecretMask mask = new SecretMask(List.of(new byte[0], "abcd".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("x **** y", mask.mask("x abcd y"));
        assertArrayEquals("x **** y".getBytes(StandardCharsets.US_ASCII),
                mask.mask("x abcd y".getBytes(StandardCharsets.US_ASCII), false));
    }

    @Test
    void onlyEmptySecretsMaskNothing() {
        SecretMask mask = new SecretMask(List.of(new byte[0]));
        assertEquals("abc", mask.mask("abc"));
        assertArrayEquals(new byte[] {1, 2, 3}, mask.mask(new byte[] {1, 2, 3}, true));
    }
}
