package dev.postern.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import tools.jackson.databind.json.JsonMapper;

/**
 * The steps of {@code interop/ts/upstream-steps.mjs}, taken by the MCP Java SDK's stdio client in this
 * JVM against a gateway with {@link PinnedUpstreams}, recorded in the same shape as the TypeScript
 * scripts record them ({@code steps.NAME.result} or {@code .thrown}, {@code elicitations}), so that
 * {@link UpstreamClientRun}'s judgements hold all three clients to one standard. The client declares
 * form elicitation; its human approves only a question naming {@code FILES_DIR/approved.txt}.
 */
final class JavaSdkUpstreamSteps {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonMapper SDK_JSON = JsonMapper.builder().build();

    private final ObjectNode record = JSON.createObjectNode();
    private final ObjectNode steps = record.putObject("steps");
    private final ArrayNode elicitations = record.putArray("elicitations");
    private final String filesDir;

    private JavaSdkUpstreamSteps(String filesDir) {
        this.filesDir = filesDir;
    }

    /** Runs every step against the gateway started by {@code serverCommand} and returns the record. */
    static JsonNode run(Path serverCommand, Path filesRoot) {
        JavaSdkUpstreamSteps s = new JavaSdkUpstreamSteps(filesRoot.toString());
        StdioClientTransport transport = new StdioClientTransport(
                ServerParameters.builder(serverCommand.toString()).build(), new JacksonMcpJsonMapper(SDK_JSON));
        McpSyncClient client = McpClient.sync(transport)
                .clientInfo(new McpSchema.Implementation("postern-interop-java-upstream", "1.0.0"))
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(s::human)
                .requestTimeout(Duration.ofSeconds(60))
                .initializationTimeout(Duration.ofSeconds(90))
                .build();
        String dir = s.filesDir;
        s.step("connect", () -> client.initialize().serverInfo());
        s.step("tools/list", () -> client.listTools().tools());
        s.step("echo", () -> call(client, "everything__echo", Map.of("message", UpstreamClientRun.ECHO_MESSAGE)));
        s.step("undeclared", () -> call(client, "everything__echo", Map.of("message", "undeclared-marker", "sneaky", "never-sent")));
        s.step("narrowed", () -> call(client, "everything__get-sum", Map.of("a", 1000, "b", 1)));
        s.step("sum", () -> call(client, "everything__get-sum", Map.of("a", 2, "b", 3)));
        s.step("write-approved", () -> call(client, "files__write_file",
                Map.of("path", dir + "/approved.txt", "content", UpstreamClientRun.APPROVED_CONTENT)));
        s.step("write-declined", () -> call(client, "files__write_file",
                Map.of("path", dir + "/declined.txt", "content", "must never be written")));
        s.step("write-outside", () -> call(client, "files__write_file",
                Map.of("path", dir + "/run.sh", "content", "must never be written")));
        s.step("read", () -> call(client, "files__read_text_file", Map.of("path", dir + "/approved.txt")));
        s.step("close", () -> client.closeGracefully() ? "closed" : "not closed gracefully");
        return s.record;
    }

    private static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments) {
        return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
    }

    /** The human: records the question; approves only one that names FILES_DIR/approved.txt. */
    private McpSchema.ElicitResult human(McpSchema.ElicitFormRequest request) {
        ObjectNode asked = elicitations.addObject();
        asked.put("message", request.message());
        asked.set("requestedSchema", JSON.valueToTree(request.requestedSchema()));
        asked.put("mode", request.mode());
        return request.message().contains(filesDir + "/approved.txt")
                ? new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("approve", true))
                : new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null);
    }

    /** Records what {@code action} returned as the SDK writes it on the wire, or what it threw. */
    private void step(String name, Callable<Object> action) {
        ObjectNode s = steps.putObject(name);
        try {
            s.set("result", wire(action.call()));
        } catch (Exception e) {
            s.put("thrown", String.valueOf(e.getMessage()));
        }
    }

    private static JsonNode wire(Object value) throws Exception {
        return JSON.readTree(SDK_JSON.writeValueAsString(value));
    }
}
