package dev.postern.executor.http.archfixtures;

import com.fasterxml.jackson.databind.ObjectMapper;

/** Violation: an executor reading JSON. Never run. */
public final class HttpExecutorReadingJson {
    private HttpExecutorReadingJson() {
    }

    static ObjectMapper mapper() {
        return new ObjectMapper();
    }
}
