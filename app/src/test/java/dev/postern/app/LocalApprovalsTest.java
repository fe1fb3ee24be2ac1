package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.port.ApprovalRecord.Channel;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The registry of held actions: the first answer wins, once, only for the digest shown; the client's claim counts only if first. */
class LocalApprovalsTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);
    private final LocalApprovals approvals = new LocalApprovals(Clock.systemUTC());

    @AfterEach
    void stop() {
        approvals.close();
    }

    private LocalApprovals.Held hold() {
        return approvals.open(new LocalApprovals.Shown("ssh_exec", "ssh.command:web.restart", "c 1", "m", DIGEST), Duration.ofSeconds(60));
    }

    @Test
    void theFirstAnswerWinsAndASecondIsRefused() {
        LocalApprovals.Held held = hold();
        assertTrue(approvals.answer(held.id(), DIGEST, false, Channel.TERMINAL));
        assertFalse(approvals.answer(held.id(), DIGEST, true, Channel.PAGE));
        assertEquals(Optional.of(new LocalApprovals.Answer(false, Channel.TERMINAL)), held.answer().join());
        assertFalse(approvals.claim(held), "the client's answer comes too late to count");
        assertTrue(approvals.byId(held.id()).isEmpty());
    }

    @Test
    void aClientThatAnswersFirstClaimsTheActionAndThePageAndTerminalCannotAnswer() {
        LocalApprovals.Held held = hold();
        assertTrue(approvals.claim(held));
        assertFalse(approvals.answer(held.id(), DIGEST, true, Channel.TERMINAL));
        assertEquals(Optional.empty(), held.answer().join());
        assertTrue(approvals.endedSecret(held.secret()));
    }

    @Test
    void anAnswerNamingAnotherDigestOrIdAnswersNothing() {
        LocalApprovals.Held held = hold();
        assertFalse(approvals.answer(held.id(), "sha256:" + "cd".repeat(32), true, Channel.TERMINAL));
        assertFalse(approvals.answer("0000000000", DIGEST, true, Channel.TERMINAL));
        assertFalse(held.answer().isDone());
        LocalApprovals.Held other = hold();
        assertNotEquals(held.id(), other.id());
        assertNotEquals(held.secret(), other.secret());
        assertNotEquals(held.csrf(), other.csrf());
    }
}
