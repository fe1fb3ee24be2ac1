package dev.postern.policy.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** An approval row checks itself: a digest and a frame hash of the right form, a result exactly on an answer. */
class ApprovalRecordTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);
    private static final String FRAME = "cd".repeat(32);

    @Test
    void aQuestionHasNoResultAndAnAnswerHasOne() {
        ApprovalRecord asked = ApprovalRecord.asked("http.confirm", DIGEST, ApprovalRecord.Channel.CLIENT, FRAME);
        assertEquals(ApprovalRecord.Event.ASKED, asked.event());
        assertEquals(Optional.empty(), asked.result());
        assertEquals(Optional.empty(), asked.detail());
        ApprovalRecord answered = ApprovalRecord.answered("http.confirm", DIGEST, ApprovalRecord.Channel.CLIENT,
                "approved", "the human accepted", FRAME);
        assertEquals(ApprovalRecord.Event.ANSWERED, answered.event());
        assertEquals(Optional.of("approved"), answered.result());
        assertEquals(Optional.of("the human accepted"), answered.detail());
        assertEquals(ApprovalRecord.Channel.CLIENT, answered.channel());
        assertThrows(IllegalArgumentException.class, () -> new ApprovalRecord(ApprovalRecord.Event.ASKED, "r", DIGEST,
                ApprovalRecord.Channel.NONE, Optional.of("approved"), Optional.empty(), FRAME));
        assertThrows(IllegalArgumentException.class, () -> new ApprovalRecord(ApprovalRecord.Event.ANSWERED, "r", DIGEST,
                ApprovalRecord.Channel.NONE, Optional.empty(), Optional.empty(), FRAME));
    }

    @Test
    void aDigestOrFrameHashOfAnyOtherFormIsRefused() {
        for (String digest : new String[] {null, "ab".repeat(32), "sha256:" + "AB".repeat(32), "sha256:" + "ab".repeat(31)}) {
            assertThrows(IllegalArgumentException.class,
                    () -> ApprovalRecord.asked("r", digest, ApprovalRecord.Channel.NONE, FRAME), String.valueOf(digest));
        }
        for (String frame : new String[] {null, "CD".repeat(32), "cd".repeat(31), "sha256:" + "cd".repeat(32)}) {
            assertThrows(IllegalArgumentException.class,
                    () -> ApprovalRecord.asked("r", DIGEST, ApprovalRecord.Channel.NONE, frame), String.valueOf(frame));
        }
        assertThrows(NullPointerException.class, () -> ApprovalRecord.asked(null, DIGEST, ApprovalRecord.Channel.NONE, FRAME));
        assertThrows(NullPointerException.class, () -> ApprovalRecord.asked("r", DIGEST, null, FRAME));
    }
}
