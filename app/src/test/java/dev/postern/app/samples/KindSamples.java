package dev.postern.app.samples;

import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.outcome.Outcome;
import dev.postern.protocol.tools.EffectKind;
import java.lang.reflect.InvocationTargetException;
import java.util.Optional;

/**
 * What one kind brings to the tests that present every registered kind ({@code KindPresentationTest},
 * {@code ToolReferenceTest}): an example allowance, what its run-time source lists for it, a sample
 * outcome and one too large for a result. Each kind has one implementation in this package, named for
 * its {@code EffectKind} ({@code HttpRequestKind} → {@code HttpRequestSamples}), found by that name, so a
 * new kind adds a file here and edits no test; {@link #of} fails, naming the file, when it is missing.
 */
public interface KindSamples {

    /** An allowance of the kind as an operator would write it, for the documented tool reference (docs/tools.json). */
    Allowance exampleAllowance();

    /** {@code live} with what the kind's run-time source lists for {@link #exampleAllowance()}; as it is for a static kind. */
    default LiveTools listed(LiveTools live) {
        return live;
    }

    /** A sample outcome, with bytes that are not UTF-8 where the outcome carries bytes. */
    Outcome outcome();

    /**
     * An outcome too large for a 64 KiB result, which the kind must shrink to fit; empty for a kind whose
     * result is the effect's own, capped by its executor and passed on whole.
     */
    Optional<Outcome> tooLargeForAResult();

    /** The samples of {@code kind}, by the naming rule above. */
    static KindSamples of(EffectKind<?, ?, ?> kind) {
        String simple = kind.getClass().getSimpleName();
        String name = KindSamples.class.getPackageName() + "." + (simple.endsWith("Kind") ? simple.substring(0, simple.length() - 4) : simple)
                + "Samples";
        try {
            Object samples = Class.forName(name).getDeclaredConstructor().newInstance();
            if (!(samples instanceof KindSamples)) {
                throw new AssertionError(name + " does not implement KindSamples");
            }
            KindSamples s = (KindSamples) samples;
            if (!kind.allowanceType().isInstance(s.exampleAllowance()) || !kind.outcomeType().isInstance(s.outcome())) {
                throw new AssertionError(name + " gives samples of another kind than " + simple);
            }
            return s;
        } catch (ClassNotFoundException e) {
            throw new AssertionError("the kind " + simple + " has no samples: add app/src/test/java/"
                    + name.replace('.', '/') + ".java implementing KindSamples");
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(name + " needs a public no-argument constructor", e instanceof InvocationTargetException ? e.getCause() : e);
        }
    }
}
