package dev.postern.policy.port;

import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.LiveTools;
import java.util.function.BiConsumer;

/**
 * Finds, at run time, the tools of allowances whose tools only their server knows (an upstream MCP
 * server's {@code tools/list}), and reports every change. Implemented by the executor that also calls
 * them, since discovery and calls share one connection. Thread-safe.
 */
public interface ToolSource {

    /**
     * Starts finding; {@code listener} is called, from any thread, with each allowance's listing
     * whenever it changes (pending, listed, unavailable). Returns at once.
     */
    void start(BiConsumer<Allowance, LiveTools.Listing> listener);
}
