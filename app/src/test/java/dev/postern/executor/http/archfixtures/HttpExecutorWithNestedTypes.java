package dev.postern.executor.http.archfixtures;

import java.util.List;

/**
 * An adapter with public nested types: {@code Probe} (a public method returns it), its members (nested
 * in it), {@code Options} (a public constructor takes it) are its API; {@code Loose} (named by no public
 * signature) is an internal class that slipped past the one-public-class rule. Never run.
 */
public final class HttpExecutorWithNestedTypes {
    public HttpExecutorWithNestedTypes(Options options) {
        if (options == null) {
            throw new IllegalArgumentException("options");
        }
    }

    public static Probe probe() {
        return new Probe.Found(List.of());
    }

    static Loose loose() {
        return new Loose();
    }

    /** API: named by probe(). */
    public sealed interface Probe {
        /** API: nested in Probe. */
        record Found(List<Step> steps) implements Probe {
        }

        /** API: nested in Probe, met only as a type argument. */
        enum Step { ONE }
    }

    /** API: named by the public constructor. */
    public record Options(int limit) {
    }

    /** Violation: public, nested, named by no public signature. */
    public static final class Loose {
    }
}
