package dev.postern.executor.mcp.archfixtures;

import dev.postern.transport.FrameWriter;

/** Violation: the upstream executor using a transport class other than the frame reader (the gateway's own writer). Never run. */
public final class UpstreamExecutorWritingFrames {
    private UpstreamExecutorWritingFrames() {
    }

    static String writer(FrameWriter writer) {
        return writer.toString();
    }
}
