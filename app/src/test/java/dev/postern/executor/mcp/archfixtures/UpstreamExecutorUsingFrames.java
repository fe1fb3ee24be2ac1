package dev.postern.executor.mcp.archfixtures;

import dev.postern.transport.FrameReader;

/** Allowed: the upstream executor reading an upstream's stdout with the transport's own frame reader. Never run. */
public final class UpstreamExecutorUsingFrames {
    private UpstreamExecutorUsingFrames() {
    }

    static String reader(FrameReader reader) {
        return reader.toString();
    }
}
