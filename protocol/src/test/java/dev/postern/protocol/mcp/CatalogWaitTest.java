package dev.postern.protocol.mcp;

import static dev.postern.protocol.mcp.McpServerTest.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The catalog is asked for before every frame but a well-formed {@code initialize} request, so the
 * first {@code initialize} is answered while the configuration is still being checked and everything
 * else, even a frame that is refused, waits for it. Here the catalog never comes: asking for it fails.
 */
class CatalogWaitTest {
    private final McpServer server = new McpServer(() -> {
        throw new IllegalStateException("the configuration is still being checked");
    }, new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));

    @Test
    void initializeIsAnsweredWithoutTheCatalog() {
        assertInstanceOf(Inbound.Respond.class, server.receive(frame(McpServerTest.INIT)));
    }

    @Test
    void everyOtherFrameAsksForTheCatalogFirst() {
        server.receive(frame(McpServerTest.INIT));
        for (String other : new String[] {McpServerTest.INITIALIZED, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}"}) {
            assertEquals("the configuration is still being checked",
                    assertThrows(IllegalStateException.class, () -> server.receive(frame(other))).getMessage(), other);
        }
    }

    @Test
    void aRefusedFrameAsksForTheCatalogToo() {
        assertThrows(IllegalStateException.class, () -> server.receive(frame("{\"jsonrpc\":\"2.0\",\"id\":1}")));
    }
}
