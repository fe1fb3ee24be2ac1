package dev.postern.executor.http.archfixtures.internal;

/** Compliant where its own module uses it: public only for a library that instantiates it by name. Never run. */
public final class HttpSocketFactory {
    public HttpSocketFactory(String argument) {
        if (argument.isEmpty()) {
            throw new IllegalArgumentException("argument");
        }
    }
}
