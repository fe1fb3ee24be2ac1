package dev.postern.app.archfixtures;

import dev.postern.executor.http.archfixtures.internal.HttpSocketFactory;

/** Violation: the composition root reaching into an executor's internal package. Never run. */
public final class WiringReachingInternal {
    private WiringReachingInternal() {
    }

    static Object reach() {
        return new HttpSocketFactory("x");
    }
}
