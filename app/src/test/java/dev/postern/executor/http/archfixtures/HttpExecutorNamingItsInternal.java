package dev.postern.executor.http.archfixtures;

import dev.postern.executor.http.archfixtures.internal.HttpSocketFactory;

/** Compliant: an executor naming its own module's internal class (as the SQL executor names its socket factory). Never run. */
public final class HttpExecutorNamingItsInternal {
    private HttpExecutorNamingItsInternal() {
    }

    static String factoryName() {
        return HttpSocketFactory.class.getName();
    }
}
