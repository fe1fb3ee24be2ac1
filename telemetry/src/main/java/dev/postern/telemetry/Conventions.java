package dev.postern.telemetry;

import io.opentelemetry.api.common.AttributeKey;
import java.util.List;
import java.util.Set;

/**
 * The attribute and metric names, as the OpenTelemetry MCP semantic conventions give them
 * (open-telemetry/semantic-conventions-genai, docs/gen-ai/mcp.md, status Development, at v0.1.0 and
 * main of 2026), and Postern's own under {@code postern.*}. Constants only.
 */
final class Conventions {
    static final AttributeKey<String> MCP_METHOD_NAME = AttributeKey.stringKey("mcp.method.name");
    static final AttributeKey<String> MCP_PROTOCOL_VERSION = AttributeKey.stringKey("mcp.protocol.version");
    static final AttributeKey<String> GEN_AI_TOOL_NAME = AttributeKey.stringKey("gen_ai.tool.name");
    static final AttributeKey<String> GEN_AI_OPERATION_NAME = AttributeKey.stringKey("gen_ai.operation.name");
    static final AttributeKey<String> JSONRPC_REQUEST_ID = AttributeKey.stringKey("jsonrpc.request.id");
    static final AttributeKey<String> RPC_RESPONSE_STATUS_CODE = AttributeKey.stringKey("rpc.response.status_code");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> NETWORK_TRANSPORT = AttributeKey.stringKey("network.transport");

    static final AttributeKey<String> HTTP_REQUEST_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> HTTP_REQUEST_METHOD_ORIGINAL = AttributeKey.stringKey("http.request.method_original");
    static final AttributeKey<Long> HTTP_RESPONSE_STATUS_CODE = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<String> URL_SCHEME = AttributeKey.stringKey("url.scheme");

    static final AttributeKey<String> POSTERN_DECISION = AttributeKey.stringKey("postern.decision");
    static final AttributeKey<String> POSTERN_RULE = AttributeKey.stringKey("postern.rule");
    static final AttributeKey<String> POSTERN_STAGE = AttributeKey.stringKey("postern.stage");
    static final AttributeKey<String> POSTERN_REASON = AttributeKey.stringKey("postern.reason");
    static final AttributeKey<String> POSTERN_KIND = AttributeKey.stringKey("postern.kind");
    static final AttributeKey<String> POSTERN_TARGET = AttributeKey.stringKey("postern.target");
    static final AttributeKey<String> POSTERN_APPROVAL = AttributeKey.stringKey("postern.approval.outcome");
    static final AttributeKey<Long> POSTERN_INTENT_SEQ = AttributeKey.longKey("postern.intent.seq");
    static final AttributeKey<String> POSTERN_OUTCOME = AttributeKey.stringKey("postern.outcome");
    static final AttributeKey<String> POSTERN_JOURNAL_NAME = AttributeKey.stringKey("postern.journal.name");
    static final AttributeKey<Long> POSTERN_JOURNAL_SEQ = AttributeKey.longKey("postern.journal.seq");
    static final AttributeKey<String> POSTERN_JOURNAL_HASH = AttributeKey.stringKey("postern.journal.hash");
    static final AttributeKey<Boolean> POSTERN_JOURNAL_FORCED = AttributeKey.booleanKey("postern.journal.forced");

    static final String EXECUTE_TOOL = "execute_tool";
    static final String TOOL_ERROR = "tool_error";
    static final String PIPE = "pipe";
    /** The conventions' fallback for a value outside the well-known list (a method no MCP revision defines). */
    static final String OTHER = "_OTHER";

    static final String SERVER_DURATION = "mcp.server.operation.duration";
    /** The bucket boundaries the conventions advise for MCP operation durations, in seconds. */
    static final List<Double> DURATION_BUCKETS = List.of(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0);
    /** Buckets for a journal write, in seconds: a write without force is microseconds, a force milliseconds. */
    static final List<Double> FLUSH_BUCKETS = List.of(0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1.0);
    static final String DECISIONS = "postern.decisions";
    static final String APPROVALS = "postern.approvals";
    static final String EXECUTOR_DURATION = "postern.executor.duration";
    static final String JOURNAL_FLUSH_DURATION = "postern.journal.flush.duration";
    static final String UPSTREAM_DROPPED = "postern.upstream.dropped";

    /**
     * The methods the conventions list as well-known for {@code mcp.method.name}, plus the stateless
     * revision's {@code server/discover}. Any other method the agent sends is recorded as {@link #OTHER}:
     * it is the agent's text, and span names and metric attributes stay low-cardinality and value-free.
     */
    static final Set<String> KNOWN_METHODS = Set.of("completion/complete", "elicitation/create", "initialize", "logging/setLevel",
            "notifications/cancelled", "notifications/initialized", "notifications/message", "notifications/progress",
            "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated",
            "notifications/roots/list_changed", "notifications/tools/list_changed", "ping", "prompts/get", "prompts/list",
            "resources/list", "resources/read", "resources/subscribe", "resources/templates/list", "resources/unsubscribe",
            "roots/list", "sampling/createMessage", "tools/call", "tools/list", "server/discover");

    private Conventions() {
    }

    static String method(String method) {
        return KNOWN_METHODS.contains(method) ? method : OTHER;
    }
}
