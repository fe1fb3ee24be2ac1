package dev.postern.policy.outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class ExecutionFailureTest {

    private static final SshExitOutcome READ_SO_FAR = new SshExitOutcome("web-1", OptionalInt.empty(), Optional.empty(),
            "started".getBytes(StandardCharsets.UTF_8), false, new byte[0], false, "SHA256:" + "A".repeat(43));

    @Test
    void twoArgumentFailureCarriesNoPartial() {
        assertEquals(Optional.empty(), new ExecutionFailure(FailureCode.CONNECT_FAILED, "refused").partial());
    }

    @Test
    void timeoutCarriesWhatWasReadSoFar() {
        ExecutionFailure failure = new ExecutionFailure(FailureCode.TIMEOUT, "no answer", Optional.of(READ_SO_FAR));

        assertEquals(Optional.of(READ_SO_FAR), failure.partial());
        assertEquals(new ExecutionFailure(FailureCode.TIMEOUT, "no answer", Optional.of(READ_SO_FAR)), failure);
    }

    @Test
    void partialThatIsItselfAFailureIsRefused() {
        ExecutionFailure inner = new ExecutionFailure(FailureCode.TIMEOUT, "inner");

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ExecutionFailure(FailureCode.TIMEOUT, "outer", Optional.of(inner)));
        assertEquals("partial must be what was read before the failure, not another failure", e.getMessage());
    }

    @Test
    void missingPartialIsNamed() {
        NullPointerException e = assertThrows(NullPointerException.class,
                () -> new ExecutionFailure(FailureCode.TIMEOUT, "t", null));
        assertEquals("partial", e.getMessage());
    }

    @Test
    void theShortConstructorsMeanNoDetailAndWithDetailKeepsEverythingElse() {
        assertEquals("", new ExecutionFailure(FailureCode.CONNECT_FAILED, "refused").detail());
        assertEquals("", new ExecutionFailure(FailureCode.TIMEOUT, "no answer", Optional.of(READ_SO_FAR)).detail());

        ExecutionFailure detailed = new ExecutionFailure(FailureCode.TIMEOUT, "no answer", Optional.of(READ_SO_FAR))
                .withDetail("host web-1 is deploy@10.0.0.5:22");
        assertEquals(new ExecutionFailure(FailureCode.TIMEOUT, "no answer", Optional.of(READ_SO_FAR), "host web-1 is deploy@10.0.0.5:22"),
                detailed);
    }

    @Test
    void theDetailIsNotAmongTheVisibleParts() {
        ExecutionFailure f = new ExecutionFailure(FailureCode.CONNECT_FAILED, "cannot connect to web").withDetail("10.0.0.5:22");

        for (byte[] part : f.visibleParts()) {
            assertEquals(false, new String(part, StandardCharsets.UTF_8).contains("10.0.0.5"));
        }
        assertEquals(2, f.visibleParts().size());
    }

    @Test
    void missingDetailIsNamed() {
        NullPointerException e = assertThrows(NullPointerException.class,
                () -> new ExecutionFailure(FailureCode.TIMEOUT, "t", Optional.empty(), null));
        assertEquals("detail", e.getMessage());
    }

    @Test
    void chainNamesEachCauseWithItsMessage() {
        Exception e = new IllegalStateException("outer", new java.io.IOException("Connection refused", new RuntimeException()));

        assertEquals("IllegalStateException: outer; caused by IOException: Connection refused; caused by RuntimeException",
                ExecutionFailure.chain(e));
    }
}
