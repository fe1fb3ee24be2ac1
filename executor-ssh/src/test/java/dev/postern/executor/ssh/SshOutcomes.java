package dev.postern.executor.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.SshExitOutcome;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Assertions the SSH executor's tests share: what an outcome is, and waiting for a server-side effect. */
final class SshOutcomes {
    private SshOutcomes() {
    }

    static SshExitOutcome exited(Outcome outcome) {
        return assertInstanceOf(SshExitOutcome.class, outcome, () -> "expected an exit, got " + outcome);
    }

    static ExecutionFailure assertFailure(FailureCode code, Outcome outcome) {
        ExecutionFailure failure = assertInstanceOf(ExecutionFailure.class, outcome, () -> "expected " + code + ", got " + outcome);
        assertEquals(code, failure.code(), failure.message());
        return failure;
    }

    /** Polls {@code condition} every 20 ms for up to 10 s; fails naming {@code what} otherwise. */
    static void eventually(BooleanSupplier condition, String what) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not within 10 s: " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }
}
