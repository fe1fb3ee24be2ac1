package dev.postern.executor.mcp.archfixtures;

import com.fasterxml.jackson.databind.ObjectMapper;

/** Violation: the upstream executor parsing JSON with a library of its own instead of the gateway's codec. Never run. */
public final class UpstreamExecutorReadingJson {
    private UpstreamExecutorReadingJson() {
    }

    static Object parse(String line) throws Exception {
        return new ObjectMapper().readTree(line);
    }
}
