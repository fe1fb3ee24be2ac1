package dev.postern.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postern.transport.FramingError.Kind;
import org.junit.jupiter.api.Test;

/** The result records refuse what the reader could never produce. */
class RecordsTest {
    private static final String ABC_SHA = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    @Test
    void frameOfFingerprintsTheUtf8Bytes() {
        assertEquals(new Frame("abc", ABC_SHA), Frame.of("abc"));
    }

    @Test
    void frameRefusesMalformedFingerprints() {
        assertThrows(IllegalArgumentException.class, () -> new Frame("abc", ABC_SHA.toUpperCase()));
        assertThrows(IllegalArgumentException.class, () -> new Frame("abc", ABC_SHA.substring(1)));
        assertThrows(NullPointerException.class, () -> new Frame("abc", null));
        assertThrows(IllegalArgumentException.class, () -> new Frame("abc", ABC_SHA + "0"));
        assertThrows(IllegalArgumentException.class, () -> new Frame("abc", ""));
    }

    @Test
    void aFingerprintIsSixtyFourOfExactlyTheDigitsAndLettersAToF() {
        for (char c : new char[] {'/', ':', '`', 'g', 'A', 'F', ' ', '\u0660'}) {
            String bad = c + ABC_SHA.substring(1);
            assertThrows(IllegalArgumentException.class, () -> new Frame("abc", bad), "leading " + c);
            String badEnd = ABC_SHA.substring(0, 63) + c;
            assertThrows(IllegalArgumentException.class, () -> new Frame("abc", badEnd), "trailing " + c);
        }
        for (char c : new char[] {'0', '9', 'a', 'f'}) {
            String good = c + ABC_SHA.substring(1);
            assertEquals(good, new Frame("abc", good).sha256());
        }
    }

    @Test
    void frameRefusesTextNoLineCouldHold() {
        assertThrows(NullPointerException.class, () -> new Frame(null, ABC_SHA));
        assertThrows(IllegalArgumentException.class, () -> new Frame("", ABC_SHA));
        assertThrows(IllegalArgumentException.class, () -> new Frame("a\nb", ABC_SHA));
        assertThrows(IllegalArgumentException.class, () -> new Frame("a\r", ABC_SHA));
    }

    @Test
    void framingErrorRefusesMissingParts() {
        assertThrows(NullPointerException.class, () -> new FramingError(null, "d", ABC_SHA));
        assertThrows(NullPointerException.class, () -> new FramingError(Kind.TOO_LONG, null, ABC_SHA));
        assertThrows(IllegalArgumentException.class, () -> new FramingError(Kind.TOO_LONG, "d", "abc"));
    }
}
