package dev.postern.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Outside text made safe for a message: C0, DEL and C1 escaped or replaced at their exact edges, a reason's length bound in code points. */
class PrintableTest {

    @Test
    void everyIsoControlCharacterIsEscapedAndTheirNeighboursAreNot() {
        assertEquals("\\u0000\\u001f \\u007f~\\u0080\\u009f\u00a0\\u009b[2J",
                Printable.escaped("\u0000\u001f \u007f~\u0080\u009f\u00a0\u009b[2J"));
    }

    @Test
    void separatorsAndBidirectionalControlsAreEscapedAtTheirExactEdgesSoNothingIsReordered() {
        assertEquals("\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069\\u200e\\u200f\\u061c\u2027\u202f\u2065\u206a\u200d",
                Printable.escaped("\u2028\u2029\u202a\u202e\u2066\u2069\u200e\u200f\u061c\u2027\u202f\u2065\u206a\u200d"));
        assertEquals("evil?txt.exe", Printable.replaced("evil\u202etxt.exe"));
    }

    @Test
    void aReasonShowsAtMost64CodePointsCountingASurrogatePairAsOne() {
        String emoji = "\uD83D\uDE00";
        String shown = Printable.shown(emoji.repeat(70));
        assertEquals(emoji.repeat(Printable.SHOWN_CODE_POINTS), shown);
        assertEquals("x".repeat(64), Printable.shown("x".repeat(65)));
        assertEquals("ab\\u000a", Printable.shown("ab\n"));
    }

    @Test
    void aLineShownAsItCameKeepsTabsAndItsLengthAndLosesEveryOtherControl() {
        String line = "a\tb\rc\u001b[31md\u009be\u007f\u0080\u009f\u00a0";
        String replaced = Printable.replaced(line);
        assertEquals("a\tb?c?[31md?e???\u00a0", replaced);
        assertEquals(line.length(), replaced.length());
    }
}
