package dev.postern.policy.port;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The forms of a secret the mask recognises besides its exact bytes: ASCII letters in any case, any
 * byte percent-encoded in upper or lower hex, {@code +} for a space; and what it leaves alone: text
 * that decodes to something else, a secret's prefix, secrets under the 4-byte floor in any form.
 */
class SecretMaskEncodedFormsTest {
    /** A password with a space, symbols that URL and form encoders escape, and letters of both cases. */
    private static final String SECRET = "Pa ss+w/rd-X9";
    private static final SecretMask MASK = new SecretMask(List.of(SECRET.getBytes(StandardCharsets.UTF_8)));

    /** Each row: what the target did to the secret, and what it echoed. */
    private static final String[][] RECOGNISED = {
        {"exact", "Pa ss+w/rd-X9"},
        {"upper-cased", "PA SS+W/RD-X9"},
        {"lower-cased", "pa ss+w/rd-x9"},
        {"mixed case", "pA Ss+W/rD-x9"},
        {"every byte encoded, upper hex", "%50%61%20%73%73%2B%77%2F%72%64%2D%58%39"},
        {"every byte encoded, lower hex", "%50%61%20%73%73%2b%77%2f%72%64%2d%58%39"},
        {"URL encoding (RFC 3986)", "Pa%20ss%2Bw%2Frd-X9"},
        {"form encoding, + for space", "Pa+ss%2Bw%2Frd-X9"},
        {"form encoding, lower hex", "Pa+ss%2bw%2frd-X9"},
        {"only the dash encoded", "Pa ss+w/rd%2DX9"},
        {"encoded and upper-cased", "PA+SS%2BW%2FRD-X9"},
        {"encoded letter of the other case", "%70a ss+w/rd-X9"},
        {"hex digits A-F in both cases", "Pa ss+w%2Frd%2d%58%39"},
    };

    @Test
    void aSecretInAnyRecognisedFormIsMaskedInBodiesAndText() {
        for (String[] row : RECOGNISED) {
            String body = "before [" + row[1] + "] after";
            assertEquals("before [****] after", new String(MASK.mask(body.getBytes(StandardCharsets.UTF_8), false),
                    StandardCharsets.UTF_8), row[0]);
            assertEquals("before [****] after", MASK.mask(body), row[0]);
            byte[] window = body.getBytes(StandardCharsets.UTF_8);
            assertEquals("before [****] after", new String(MASK.maskCut(window, window.length), StandardCharsets.UTF_8),
                    row[0]);
        }
    }

    @Test
    void whatJavasOwnEncodersMakeOfTheSecretIsMasked() {
        String form = URLEncoder.encode(SECRET, StandardCharsets.UTF_8);
        assertEquals("q=****&x=1", MASK.mask("q=" + form + "&x=1"));
        assertEquals("q=****&x=1", MASK.mask("q=" + form.toLowerCase(Locale.ROOT) + "&x=1"));
    }

    /** Each row: how the text differs from a form of the secret, and the text. */
    private static final String[][] NOT_THE_SECRET = {
        {"one byte changed", "Pa ss+w/rd-X8"},
        {"one encoded byte changed", "Pa%20ss%2Bw%2Frd-X%38"},
        {"a prefix only", "Pa ss+w/rd-"},
        {"space as %2B (a plus)", "Pa%2Bss+w/rd-X9"},
        {"plus as + read as space", "Pa ss w/rd-X9"},
        {"a broken escape", "Pa%2ss+w/rd-X9"},
        {"an escape with a non-hex digit", "%5G%61 ss+w/rd-X9"},
        {"double encoding", "Pa%2520ss+w/rd-X9"},
    };

    @Test
    void textThatDoesNotDecodeToTheSecretIsLeftAlone() {
        for (String[] row : NOT_THE_SECRET) {
            String body = "[" + row[1] + "]";
            assertEquals(body, new String(MASK.mask(body.getBytes(StandardCharsets.UTF_8), false), StandardCharsets.UTF_8),
                    row[0]);
            assertEquals(body, MASK.mask(body), row[0]);
        }
    }

    @Test
    void caseFoldingCoversTheWholeAlphabetAndOnlyLetters() {
        SecretMask mask = new SecretMask(List.of("zap@a~z".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("[****] [****] [****]", mask.mask("[ZAP@A~Z] [zAp@a~Z] [%5aap@a~z]"));
        // '@' and '`', '~' and '^' differ by the case bit but are no letters.
        assertEquals("[zap`a~z] [zap@a^z] [ZAP`A^Z]", mask.mask("[zap`a~z] [zap@a^z] [ZAP`A^Z]"));
    }

    @Test
    void textWithCharactersAboveLatin1KeepsThemAndMasksTheSecretBetweenThem() {
        assertEquals("\u2603 a **** \u2603\u2603 b **** \u00ff", MASK.mask("\u2603 a PA+SS%2BW%2FRD-X9 \u2603\u2603 b pa ss+w/rd-x9 \u00ff"));
    }

    @Test
    void aNonAsciiSecretIsMaskedPercentEncodedAsUtf8InEitherHexCase() {
        SecretMask mask = new SecretMask(List.of("pässwörd".getBytes(StandardCharsets.UTF_8)));
        assertEquals("x=****", mask.mask("x=p%C3%A4sSw%c3%b6RD"));
        assertEquals("x=****", mask.mask("x=" + URLEncoder.encode("pässwörd", StandardCharsets.UTF_8).toUpperCase(Locale.ROOT)));
    }

    @Test
    void aSecretHoldingAPercentSignIsMaskedLiteralOrEncodedButNotDecodedAsAnEscape() {
        SecretMask mask = new SecretMask(List.of("ab%41cd".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("[****] [****] [****]", mask.mask("[ab%41cd] [AB%2541CD] [ab%2541cd]"));
        assertEquals("[abAcd] [ab%cd]", mask.mask("[abAcd] [ab%cd]"));
    }

    @Test
    void aSecretStartingWithAPercentSignIsMaskedLiteralOrEncoded() {
        SecretMask mask = new SecretMask(List.of("%zz-key".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("[****] [****] [****]", mask.mask("[%zz-key] [%25ZZ-KEY] [%25zz%2Dkey]"));
        assertEquals("[%zz-kex]", mask.mask("[%zz-kex]"));
    }

    @Test
    void theFourByteFloorCountsTheSecretNotItsEncodedForm() {
        // "a b" is 3 bytes; "a%20b" is 5, but the secret is still under the floor and never masked.
        SecretMask mask = new SecretMask(List.of("a b".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("a b a%20b A+B", mask.mask("a b a%20b A+B"));
    }

    @Test
    void aCutAnywhereIntoTheLongestFormMasksItWholeAndAWrongLastByteShowsNoPrefix() {
        String longest = "%50%61%20%73%73%2B%77%2F%72%64%2D%58%39";
        assertEquals(3 * SECRET.length() - 1, MASK.lookahead());
        String text = "data " + longest + " tail";
        byte[] right = text.getBytes(StandardCharsets.US_ASCII);
        int start = 5;
        int end = start + longest.length();
        for (int cut = 0; cut <= right.length; cut++) {
            byte[] window = Arrays.copyOf(right, Math.min(right.length, cut + MASK.lookahead()));
            String expected = cut <= start ? text.substring(0, cut) : "data ****" + text.substring(end, Math.max(end, cut));
            assertEquals(expected, new String(MASK.maskCut(window, cut), StandardCharsets.US_ASCII), "cut at " + cut);
        }
        // The same text with the secret's last byte wrong: a cut shows its bytes as they are.
        String wrong = text.replace("%39", "%38");
        byte[] window = Arrays.copyOf(wrong.getBytes(StandardCharsets.US_ASCII), 20 + MASK.lookahead());
        assertEquals(wrong.substring(0, 20), new String(MASK.maskCut(window, 20), StandardCharsets.US_ASCII));
    }

    @Test
    void aCutShortBodyEndingInAnEncodedPrefixHasThatTailMasked() {
        assertEquals("data ****", new String(MASK.mask("data PA+SS%2b".getBytes(StandardCharsets.US_ASCII), true),
                StandardCharsets.US_ASCII));
        assertEquals("data ****", new String(MASK.mask("data %50%6".getBytes(StandardCharsets.US_ASCII), true),
                StandardCharsets.US_ASCII));
        // A tail that is only the start of an escape could still become the secret.
        assertEquals("data ****", new String(MASK.mask("data %".getBytes(StandardCharsets.US_ASCII), true),
                StandardCharsets.US_ASCII));
        assertEquals("data ****", new String(MASK.mask("data %5".getBytes(StandardCharsets.US_ASCII), true),
                StandardCharsets.US_ASCII));
        // An escape that decodes to something else, or a tail of another text, is kept.
        assertEquals("data %51", new String(MASK.mask("data %51".getBytes(StandardCharsets.US_ASCII), true),
                StandardCharsets.US_ASCII));
        assertEquals("data Pb", new String(MASK.mask("data Pb".getBytes(StandardCharsets.US_ASCII), true),
                StandardCharsets.US_ASCII));
    }
}
