package dev.postern.bench.peer;

import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import tools.jackson.databind.json.JsonMapper;

/**
 * The MCP Java SDK's stdio server with one trivial tool, {@code postern_targets} (no arguments, a
 * fixed text answer), the peer the load driver measures beside Postern (DESIGN §9). The SDK's
 * defaults throughout; its stdout is the protocol stream.
 */
public final class JavaSdkPeer {
    private JavaSdkPeer() {
    }

    public static void main(String[] args) throws InterruptedException {
        JacksonMcpJsonMapper json = new JacksonMcpJsonMapper(JsonMapper.builder().build());
        McpSchema.Tool tool = McpSchema.Tool.builder()
                .name("postern_targets")
                .description("Trivial benchmark tool: answers a fixed text.")
                .inputSchema(Map.of("type", "object", "properties", Map.of(), "additionalProperties", false))
                .build();
        McpServerFeatures.SyncToolSpecification spec = McpServerFeatures.SyncToolSpecification.builder()
                .tool(tool)
                .callHandler((exchange, request) -> McpSchema.CallToolResult.builder()
                        .content(List.of(new McpSchema.TextContent("ok")))
                        .build())
                .build();
        CountDownLatch endOfInput = new CountDownLatch(1);
        InputStream in = new FilterInputStream(System.in) {
            @Override
            public int read() throws IOException {
                return ended(super.read());
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return ended(super.read(b, off, len));
            }

            private int ended(int n) {
                if (n < 0) {
                    endOfInput.countDown();
                }
                return n;
            }
        };
        McpSyncServer server = McpServer.sync(new StdioServerTransportProvider(json, in, System.out))
                .serverInfo("java-sdk-peer", "2.1.0")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .tools(spec)
                .build();
        // The transport reads stdin on its own threads; the process ends with its input, like a client expects.
        endOfInput.await();
        server.close();
        System.exit(0);
    }
}
