package dev.postern.protocol.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.Decision;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.Stage;
import dev.postern.policy.port.Telemetry;
import dev.postern.protocol.approval.ApprovalRoute;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import dev.postern.protocol.jsonrpc.ErrorCode;
import dev.postern.protocol.jsonrpc.JsonRpcMessage;
import dev.postern.protocol.jsonrpc.JsonRpcMessage.Notification;
import dev.postern.protocol.jsonrpc.JsonRpcMessage.Request;
import dev.postern.protocol.jsonrpc.JsonRpcResponse;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.tools.Binding;
import dev.postern.protocol.tools.Tool;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.protocol.tools.ToolResults;
import dev.postern.transport.Frame;
import dev.postern.transport.FramingError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * One MCP connection's protocol state. {@link #receive(Frame)} takes a frame through JSON,
 * JSON-RPC, MCP era and lifecycle, method and schema checks, in that order, and says what it
 * became; only an {@link Inbound.Execute} can lead to an effect, and only after the policy permits.
 *
 * <p>Both eras of DESIGN §5 are spoken. The handshake era ({@code initialize}, then
 * {@code notifications/initialized}) keeps session state; the stateless era (2026-07-28) checks
 * the {@code _meta} of every request on its own and infers nothing from earlier ones. The first
 * era-determining message fixes the era; a later request of the other era is refused as ambiguous.
 *
 * <p>It routes; the parts read alone: {@link MethodTable} (which methods each era serves, and what a
 * handshake-era method needs), {@link Lifecycle} (the era and phase, a value replaced on each
 * transition), {@link Params} (each method's params checks) and {@link Responses} (envelopes, the
 * stateless era's decoration, framing-error texts).
 *
 * <p>With {@link #observe} set, each request read opens a {@link Telemetry.Span} that the rendering of
 * its answer ends; with telemetry off nothing is kept.
 *
 * <p>{@code receive} is called by the one reader thread; the {@code render*} methods may be called
 * from any thread.
 */
public final class McpServer {
    /** Handshake-era protocol revisions, newest first. */
    public static final List<String> HANDSHAKE_VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26");
    /** Stateless-era protocol revisions, newest first. */
    public static final List<String> STATELESS_VERSIONS = List.of("2026-07-28");
    static final String META = Responses.META;
    static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
    static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
    static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
    static final String SERVER_INFO = Responses.SERVER_INFO;
    /** Handshake-era revisions with elicitation, so with approvals. */
    static final List<String> ELICITATION_VERSIONS = List.of("2025-11-25", "2025-06-18");
    /**
     * How long a stateless client may cache tools/list and server/discover. A config reload may change the
     * list sooner; a call made from a stale list is still bound and decided under the policy in force.
     */
    static final long TTL_MS = 3_600_000;

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final Supplier<ToolCatalog> catalog;
    private final StrictJson json;
    private final Responses responses;
    private final MethodTable methods;
    private final long maxResultBytes;
    private volatile Lifecycle lifecycle = Lifecycle.start();
    /** Requests Postern sent the client (approval questions) and the responses it waits for. */
    private final ServerRequests serverRequests = new ServerRequests();
    /** How a handshake-era client can be asked to approve an action; fixed at initialize. */
    private volatile ApprovalRoute handshakeApproval = new ApprovalRoute.Unable("the session is not initialized");
    private volatile ClientFacts client;
    /** Whether {@code initialize} announces {@code tools.listChanged}: the config has tools known only at run time. */
    private volatile boolean listChanged;

    /** The catalog supplier has returned once: from then on no frame waits for it. */
    private volatile boolean catalogReady;

    private volatile Telemetry telemetry = Telemetry.OFF;
    /** The spans of requests read and not yet answered, by id (empty while telemetry is off). */
    private final Map<RequestId, Telemetry.Span> spans = new ConcurrentHashMap<>();

    /**
     * What one connection accepts and answers at most: a frame of {@code maxFrameBytes} bytes (the
     * strict parser's bound too) and a tool result of {@code maxResultBytes} as rendered (see
     * {@link ToolResults}; at least 1024).
     */
    public record Limits(int maxFrameBytes, long maxResultBytes) {
        public Limits {
            if (maxFrameBytes < 1) {
                throw new IllegalArgumentException("maxFrameBytes must be positive, got " + maxFrameBytes);
            }
            if (maxResultBytes < 1024) {
                throw new IllegalArgumentException("maxResultBytes must be at least 1024");
            }
        }

        /** Frames of at most {@code maxFrameBytes}, results at the default cap. */
        public static Limits frames(int maxFrameBytes) {
            return new Limits(maxFrameBytes, ToolResults.DEFAULT_MAX_RESULT_BYTES);
        }
    }

    /** A connection over one fixed catalog, ready from the first frame. */
    public static McpServer over(ToolCatalog catalog, ServerInfo info, Limits limits) {
        return new McpServer(constant(Objects.requireNonNull(catalog, "catalog")), info, limits);
    }

    /**
     * A connection whose catalog is asked for before every frame except a well-formed {@code initialize}
     * request, so the first {@code initialize} can be answered before the catalog exists. The supplier
     * may block (the composition root holds every other frame there until the configuration is fully
     * validated) and is called on the thread that calls {@link #receive}.
     */
    public McpServer(Supplier<ToolCatalog> catalog, ServerInfo info, Limits limits) {
        Objects.requireNonNull(limits, "limits");
        int maxFrameBytes = limits.maxFrameBytes();
        long maxResultBytes = limits.maxResultBytes();
        this.maxResultBytes = maxResultBytes;
        Objects.requireNonNull(catalog, "catalog");
        this.catalog = () -> {
            ToolCatalog c = catalog.get();
            if (!catalogReady) {
                catalogReady = true;
            }
            return c;
        };
        this.json = new StrictJson(maxFrameBytes);
        this.responses = new Responses(info, json.mapper(), this::era);
        this.methods = new MethodTable()
                .handshake("ping", Lifecycle.Needs.NOTHING, (r, frame) -> respond(r.id(), JSON.objectNode()))
                .handshake("initialize", Lifecycle.Needs.NOTHING, this::initialize)
                .handshake("tools/list", Lifecycle.Needs.INITIALIZE, this::toolsList)
                .handshake("tools/call", Lifecycle.Needs.INITIALIZED, this::toolsCall)
                // ping and logging/setLevel do not exist in the stateless era.
                .stateless("initialize", (r, frame) -> refuse(r.id(), ErrorCode.INVALID_PARAMS, "ambiguous request: initialize"
                        + " belongs to the handshake era, but it carries a _meta protocol version", Stage.MCP, frame))
                .stateless("tools/list", (r, frame) -> {
                    fixStateless(r);
                    return toolsList(r, frame);
                })
                .stateless("tools/call", (r, frame) -> {
                    fixStateless(r);
                    return toolsCall(r, frame);
                });
    }

    /**
     * Reports each request read to {@code telemetry}, and its answer when rendered. Set before the
     * session starts reading.
     */
    public void observe(Telemetry telemetry) {
        this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
    }

    /** The span of request {@code id} while it is unanswered; {@link Telemetry.Span#NONE} otherwise. */
    public Telemetry.Span span(RequestId id) {
        Telemetry.Span span = spans.get(id);
        return span == null ? Telemetry.Span.NONE : span;
    }

    /** Opens the span of a request just read, parented to the trace context in its {@code params._meta} (SEP-414). */
    private void open(Request r) {
        Telemetry t = telemetry;
        if (t == Telemetry.OFF) {
            return;
        }
        JsonNode params = r.params().orElse(null);
        JsonNode meta = params == null ? JSON.missingNode() : params.path(META);
        Optional<String> id = Optional.of(r.id() instanceof RequestId.Text text ? text.value() : r.id().toJson().asText());
        Telemetry.Span span = t.request(new Telemetry.Request(r.method(), id, text(meta, "traceparent"), text(meta, "tracestate")));
        if (spans.putIfAbsent(r.id(), span) != null) {
            // A second request under an id still in flight: the session refuses it; its own span ends now.
            span.answered(new Telemetry.Answer(protocolVersion(), OptionalInt.of(ErrorCode.INVALID_REQUEST.code()), false));
        }
    }

    private static Optional<String> text(JsonNode meta, String field) {
        JsonNode v = meta.path(field);
        return v.isTextual() ? Optional.of(v.textValue()) : Optional.empty();
    }

    private Optional<String> protocolVersion() {
        ClientFacts c = client;
        return c == null ? Optional.empty() : Optional.of(c.protocolVersion());
    }

    /** Ends the span of request {@code id}, if one is open. */
    private void close(RequestId id, OptionalInt errorCode, boolean toolError) {
        if (id == null || spans.isEmpty()) {
            return;
        }
        Telemetry.Span span = spans.remove(id);
        if (span != null) {
            span.answered(new Telemetry.Answer(protocolVersion(), errorCode, toolError));
        }
    }

    /** The client, once the era is fixed (after {@code initialize}, or the first stateless request that fixes it). */
    public Optional<ClientFacts> client() {
        return Optional.ofNullable(client);
    }

    /** A stateless request that fixes the era: the era, and the client as its {@code _meta} names it. */
    private void fixStateless(Request r) {
        lifecycle = lifecycle.stateless();
        if (client == null) {
            JsonNode meta = r.params().map(p -> p.path(META)).orElse(JSON.objectNode());
            JsonNode info = meta.path(CLIENT_INFO);
            client = new ClientFacts(info.path("name").isTextual() ? info.get("name").textValue() : "unknown",
                    info.path("version").isTextual() ? info.get("version").textValue() : "unknown",
                    Era.STATELESS, meta.path(PROTOCOL_VERSION).asText("unknown"));
        }
    }

    /**
     * Whether the catalog has been obtained: once true, {@link #receive} no longer waits for it, so a
     * caller may hold answers while it reads on (before that, a frame may wait for the configuration's
     * deferred check, which must not keep the {@code initialize} answer from the client).
     */
    public boolean catalogReady() {
        return catalogReady;
    }

    /** The era this connection has settled on, if any. */
    public Era era() {
        return lifecycle.era();
    }

    /** A framing failure always ends the session: the peer has lost the frame boundary. */
    public Inbound receive(FramingError error) {
        catalog.get();
        return new Inbound.Close(errorLine(null, ErrorCode.PARSE_ERROR, "parse error: " + Responses.describe(error)),
                new Rejection(Stage.FRAMING, error.kind().name(), Optional.empty(), error.sha256()));
    }

    public Inbound receive(Frame frame) {
        JsonNode value;
        try {
            value = json.parse(frame.text());
        } catch (JsonSyntaxError e) {
            catalog.get();
            return new Inbound.Close(errorLine(null, ErrorCode.PARSE_ERROR, "parse error: " + e.getMessage()),
                    rejection(Stage.JSON, "PARSE_ERROR", frame));
        }
        if (JsonRpcResponse.looksLikeOne(value)) {
            return response(value, frame);
        }
        if (value.isArray() && lifecycle.batchesAllowed()) {
            catalog.get();
            return batch(value, frame);
        }
        JsonRpcMessage message;
        try {
            message = JsonRpcMessage.classify(value);
        } catch (JsonRpcMessage.InvalidRequest e) {
            catalog.get();
            return invalid(value, e.getMessage(), frame);
        }
        // Only an initialize request is answered without the catalog: everything else waits for it.
        if (!(message instanceof Request r && r.method().equals("initialize"))) {
            try {
                catalog.get();
            } catch (CatalogRefused refused) {
                // The session ends here; the request it interrupted is answered with why.
                throw message instanceof Request request
                        ? refused.answering(errorLine(request.id(), ErrorCode.CONFIG_INVALID, refused.getMessage(), refused.data()))
                        : refused;
            }
        }
        return dispatch(message, frame);
    }

    /**
     * The answer to {@code frame} from a gateway whose config was refused before it could serve
     * anything: a {@code CONFIG_INVALID} error for a request (initialize included), naming what
     * {@code refused} names; nothing for a notification, a response or a line that is no JSON-RPC.
     */
    public Optional<String> refusal(Frame frame, CatalogRefused refused) {
        try {
            if (JsonRpcMessage.classify(json.parse(frame.text())) instanceof Request r) {
                return Optional.of(errorLine(r.id(), ErrorCode.CONFIG_INVALID, refused.getMessage(), refused.data()));
            }
        } catch (JsonSyntaxError | JsonRpcMessage.InvalidRequest e) {
            // Not a request: there is nothing to answer, and the process exits with the config's status.
        }
        return Optional.empty();
    }

    private Inbound dispatch(JsonRpcMessage message, Frame frame) {
        if (message instanceof Notification n) {
            return notification(n);
        }
        return request((Request) message, frame);
    }

    /**
     * A response from the client: delivered to the call that waits for it; a late one runs nothing; one
     * to a request Postern never sent ends the session (DESIGN §5, -32600).
     */
    private Inbound response(JsonNode value, Frame frame) {
        JsonRpcResponse response;
        try {
            response = JsonRpcResponse.read(value);
        } catch (JsonRpcMessage.InvalidRequest e) {
            return invalid(value, e.getMessage(), frame);
        }
        ServerRequests.Reply reply = new ServerRequests.Reply(response.result(), response.error());
        switch (serverRequests.deliver(response.id(), reply)) {
            case DELIVERED:
                return new Inbound.Ignore("the answer to " + response.id().toJson(), false);
            case LATE:
                return new Inbound.Ignore("an answer to " + response.id().toJson() + " came after its wait ended; nothing runs", true);
            default:
                return invalid(value, "a response to a request Postern never sent", frame);
        }
    }

    /** The requests Postern sends this client (approval questions) awaiting responses. */
    public ServerRequests serverRequests() {
        return serverRequests;
    }

    private Inbound invalid(JsonNode value, String why, Frame frame) {
        RequestId id = value.isObject() && value.has("id") ? RequestId.of(value.get("id")).orElse(null) : null;
        return new Inbound.Close(errorLine(id, ErrorCode.INVALID_REQUEST, "invalid request: " + why),
                rejection(Stage.JSONRPC, "INVALID_REQUEST", frame));
    }

    // ---- batches (2025-03-26 only) ----

    /** Every element is checked before any is handled; one bad element rejects the whole batch. */
    private Inbound batch(JsonNode array, Frame frame) {
        if (array.isEmpty()) {
            return invalid(array, "an empty batch", frame);
        }
        List<JsonRpcMessage> messages = new ArrayList<>();
        for (JsonNode element : array) {
            try {
                JsonRpcMessage m = JsonRpcMessage.classify(element);
                if (m.method().equals("initialize")) {
                    return invalid(array, "initialize must not be part of a batch", frame);
                }
                messages.add(m);
            } catch (JsonRpcMessage.InvalidRequest e) {
                return invalid(array, "batch element " + messages.size() + ": " + e.getMessage(), frame);
            }
        }
        List<Inbound> parts = new ArrayList<>();
        messages.forEach(m -> parts.add(dispatch(m, frame)));
        return new Inbound.Batch(parts);
    }

    // ---- notifications ----

    private Inbound notification(Notification n) {
        if (n.paramsByPosition()) {
            return new Inbound.Ignore("notification " + n.method() + " with params by position", true);
        }
        switch (n.method()) {
            case "notifications/initialized":
                Optional<Lifecycle> ready = lifecycle.ready();
                if (ready.isPresent()) {
                    lifecycle = ready.get();
                    return new Inbound.Ignore("session ready", false);
                }
                return new Inbound.Ignore("initialized notification out of order", true);
            case "notifications/cancelled":
                Optional<RequestId> id = n.params().map(p -> p.get("requestId")).flatMap(node -> RequestId.of(node));
                return id.<Inbound>map(Inbound.Cancel::new)
                        .orElseGet(() -> new Inbound.Ignore("cancel notification without a valid requestId", true));
            default:
                return new Inbound.Ignore("unknown notification " + n.method(), true);
        }
    }

    // ---- requests ----

    private Inbound request(Request r, Frame frame) {
        open(r);
        if (r.paramsByPosition()) {
            return methods.knows(r.method())
                    ? refuse(r.id(), ErrorCode.INVALID_PARAMS, "params must be an object (by name), not an array", Stage.MCP, frame)
                    : refuse(r.id(), ErrorCode.METHOD_NOT_FOUND, "method not found: " + r.method(), Stage.MCP, frame);
        }
        if (r.method().equals(MethodTable.DISCOVER)) {
            return respond(r.id(), discover());
        }
        boolean statelessRequest = r.params().map(p -> p.path(META).has(PROTOCOL_VERSION)).orElse(false);
        if (statelessRequest) {
            return stateless(r, frame);
        }
        if (era() == Era.STATELESS) {
            return refuse(r.id(), ErrorCode.INVALID_PARAMS, "this connection speaks MCP " + STATELESS_VERSIONS.get(0)
                    + ": every request carries _meta \"" + PROTOCOL_VERSION + "\" and \"" + CLIENT_CAPABILITIES + '"',
                    Stage.MCP, frame);
        }
        return handshake(r, frame);
    }

    /** server/discover: answers in any state and fixes nothing. */
    private ObjectNode discover() {
        ObjectNode result = JSON.objectNode();
        result.put("resultType", "complete");
        STATELESS_VERSIONS.forEach(result.putArray("supportedVersions")::add);
        result.putObject("capabilities").putObject("tools");
        result.set("serverInfo", responses.serverInfo());
        result.put("instructions", instructions());
        result.put("ttlMs", TTL_MS);
        result.put("cacheScope", "private");
        result.putObject(META).set(SERVER_INFO, responses.serverInfo());
        return result;
    }

    private Inbound stateless(Request r, Frame frame) {
        if (era() == Era.HANDSHAKE) {
            return refuse(r.id(), ErrorCode.INVALID_PARAMS, "ambiguous request: this connection began with initialize"
                    + " (handshake era) and this request carries a _meta protocol version", Stage.MCP, frame);
        }
        JsonNode meta = r.params().orElseThrow().get(META);
        JsonNode version = meta.get(PROTOCOL_VERSION);
        if (!version.isTextual()) {
            return refuse(r.id(), ErrorCode.INVALID_PARAMS, "_meta \"" + PROTOCOL_VERSION + "\" must be a string", Stage.MCP, frame);
        }
        if (!meta.path(CLIENT_CAPABILITIES).isObject()) {
            return refuse(r.id(), ErrorCode.INVALID_PARAMS, "_meta \"" + CLIENT_CAPABILITIES + "\" must be an object", Stage.MCP, frame);
        }
        if (!STATELESS_VERSIONS.contains(version.textValue())) {
            ObjectNode data = JSON.objectNode();
            STATELESS_VERSIONS.forEach(data.putArray("supported")::add);
            data.put("requested", version.textValue());
            return new Inbound.Respond(errorLine(r.id(), ErrorCode.UNSUPPORTED_PROTOCOL_VERSION,
                    "unsupported protocol version " + version.textValue(), data),
                    Optional.of(rejection(Stage.MCP, ErrorCode.UNSUPPORTED_PROTOCOL_VERSION.name(), frame)));
        }
        // Only a tool call that needs a human's approval needs a capability (elicitation); the call
        // answers -32021 itself once the policy has said so (README, "Human approval").
        return methods.inStateless(r.method()).map(handler -> handler.handle(r, frame))
                .orElseGet(() -> refuse(r.id(), ErrorCode.METHOD_NOT_FOUND, "method not found: " + r.method(), Stage.MCP, frame));
    }

    private Inbound handshake(Request r, Frame frame) {
        Optional<MethodTable.Row> row = methods.inHandshake(r.method());
        if (row.isEmpty()) {
            return refuse(r.id(), ErrorCode.METHOD_NOT_FOUND, "method not found: " + r.method(), Stage.MCP, frame);
        }
        Optional<Lifecycle.Refusal> refusal = lifecycle.admits(row.get().needs());
        if (refusal.isPresent()) {
            ErrorCode code = refusal.get() == Lifecycle.Refusal.NOT_INITIALIZED ? ErrorCode.NOT_INITIALIZED : ErrorCode.NOT_READY;
            return refuse(r.id(), code, refusal.get().message, Stage.MCP, frame);
        }
        return row.get().handler().handle(r, frame);
    }

    private Inbound initialize(Request r, Frame frame) {
        if (!lifecycle.initializeAllowed()) {
            return refuse(r.id(), ErrorCode.ALREADY_INITIALIZED, "the session is already initialized", Stage.MCP, frame);
        }
        ObjectNode p = r.params().orElse(null);
        Optional<String> problem = Params.ofInitialize(p);
        if (problem.isPresent()) {
            return refuse(r.id(), ErrorCode.INVALID_PARAMS, problem.get(), Stage.MCP, frame);
        }
        String requested = p.get("protocolVersion").textValue();
        String negotiated = HANDSHAKE_VERSIONS.contains(requested) ? requested : HANDSHAKE_VERSIONS.get(0);
        lifecycle = lifecycle.initialized(negotiated);
        handshakeApproval = !ELICITATION_VERSIONS.contains(negotiated)
                ? new ApprovalRoute.Unable("MCP " + negotiated + " has no elicitation, so Postern cannot ask a human on this connection")
                : ApprovalRoute.formElicitation(p.get("capabilities"))
                ? new ApprovalRoute.Elicit(!negotiated.equals("2025-06-18"),
                        !negotiated.equals("2025-06-18") && ApprovalRoute.urlElicitation(p.get("capabilities")))
                : !negotiated.equals("2025-06-18") && ApprovalRoute.urlElicitation(p.get("capabilities"))
                ? new ApprovalRoute.UrlOnly()
                : new ApprovalRoute.Unable("the client did not declare the elicitation capability (form) at initialize,"
                        + " so Postern cannot ask a human");
        client = new ClientFacts(p.get("clientInfo").get("name").textValue(), p.get("clientInfo").get("version").textValue(),
                Era.HANDSHAKE, negotiated);
        ObjectNode result = JSON.objectNode();
        result.put("protocolVersion", negotiated);
        result.putObject("capabilities").putObject("tools").put("listChanged", listChanged);
        result.set("serverInfo", responses.serverInfo());
        result.put("instructions", instructions());
        return respond(r.id(), result);
    }

    private Inbound toolsList(Request r, Frame frame) {
        Optional<String> problem = Params.ofToolsList(r.params());
        if (problem.isPresent()) {
            return refuse(r.id(), ErrorCode.INVALID_PARAMS, problem.get(), Stage.MCP, frame);
        }
        ObjectNode result = JSON.objectNode();
        result.set("tools", catalog.get().describeAll());
        if (era() == Era.STATELESS) {
            result.put("ttlMs", TTL_MS);
            result.put("cacheScope", "private");
        }
        return respond(r.id(), result);
    }

    private Inbound toolsCall(Request r, Frame frame) {
        ObjectNode p = r.params().orElse(null);
        boolean stateless = era() == Era.STATELESS;
        Optional<String> problem = Params.ofToolsCall(p, stateless);
        if (problem.isPresent()) {
            return refuse(r.id(), ErrorCode.INVALID_PARAMS, problem.get(), Stage.MCP, frame);
        }
        JsonNode arguments = p.has("arguments") ? p.get("arguments") : JSON.objectNode();
        String name = p.get("name").textValue();
        ToolCatalog tools = catalog.get();
        Optional<Tool> tool = tools.find(name);
        if (tool.isEmpty()) {
            // The name the client tried is its raw input: the journal keeps only the frame's fingerprint.
            return refuse(r.id(), ErrorCode.INVALID_PARAMS, "unknown tool: " + name, Stage.MCP, frame);
        }
        span(r.id()).tool(name);
        Binding binding = tools.bind(tool.get(), arguments);
        if (binding instanceof Binding.Invalid invalid) {
            span(r.id()).rejected(Stage.SCHEMA, "INVALID_ARGUMENTS", Optional.empty());
            return new Inbound.Respond(resultLine(r.id(), ToolResults.invalidArguments(invalid)),
                    Optional.of(rejection(Stage.SCHEMA, "INVALID_ARGUMENTS", frame)
                            .ofTool(name, SchemaPointers.declared(invalid.pointer(), tool.get().inputSchema()))));
        }
        if (binding instanceof Binding.Answer answer) {
            String line = responses.result(r.id(), answer.fixed());
            close(r.id(), OptionalInt.empty(), false);
            return new Inbound.Respond(line, Optional.empty());
        }
        ApprovalRoute approval = stateless
                ? new ApprovalRoute.Stateless(ApprovalRoute.formElicitation(p.path(META).get(CLIENT_CAPABILITIES)),
                        ApprovalRoute.urlElicitation(p.path(META).get(CLIENT_CAPABILITIES)),
                        Optional.ofNullable(p.get(Params.INPUT_RESPONSES)),
                        Optional.ofNullable(p.get(Params.REQUEST_STATE)).map(JsonNode::textValue))
                : handshakeApproval;
        dev.postern.policy.action.Action action = ((Binding.ToAction) binding).action();
        if (!spans.isEmpty()) {
            tools.kinds().owning(action.getClass()).ifPresent(kind -> span(r.id()).kind(kind.toolName()));
        }
        return new Inbound.Execute(r.id(), action, frame.sha256(), name, approval,
                ProgressToken.of(p));
    }

    // ---- rendering, callable from any thread ----

    /**
     * Announce {@code tools.listChanged} at {@code initialize}: the tool list can change while the
     * session runs (tools known only at run time). Set before the session starts reading.
     */
    public void announceListChanges() {
        listChanged = true;
    }

    /**
     * The {@code notifications/tools/list_changed} line, when the client should get one now: a handshake-era
     * session past {@code notifications/initialized} that was told the list may change. The stateless era
     * has no server-to-client notifications here; its clients re-list when {@code ttlMs} runs out.
     */
    public Optional<String> listChangedNotification() {
        Lifecycle now = lifecycle;
        if (!listChanged || now.era() != Era.HANDSHAKE || now.phase() != Lifecycle.Phase.READY) {
            return Optional.empty();
        }
        return Optional.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
    }

    /** The response line for a tool call that reached an executor. */
    public String renderOutcome(RequestId id, Outcome outcome) {
        return resultLine(id, ToolResults.outcome(catalog.get().kinds(), outcome, maxResultBytes));
    }

    /**
     * A {@code notifications/progress} line for a running call under the client's own token; the
     * message (already masked by the executor) is escaped as any JSON string.
     */
    public String renderProgress(ProgressToken token, java.math.BigDecimal progress, Optional<java.math.BigDecimal> total,
            Optional<String> message) {
        ObjectNode params = JSON.objectNode();
        params.set("progressToken", token.value().deepCopy());
        params.put("progress", progress);
        total.ifPresent(t -> params.put("total", t));
        message.ifPresent(m -> params.put("message", m));
        ObjectNode n = JSON.objectNode();
        n.put("jsonrpc", "2.0");
        n.put("method", "notifications/progress");
        n.set("params", params);
        return n.toString();
    }

    /** The response line for a tool call the policy denied. */
    public String renderDenial(RequestId id, Decision.Deny deny) {
        return resultLine(id, ToolResults.denied(deny));
    }

    /**
     * The stateless era's answer to a call that needs a human first: {@code resultType: "input_required"}
     * with the question in {@code inputRequests} and the {@code requestState} to send back.
     */
    public String renderInputRequired(RequestId id, ObjectNode inputRequests, String requestState) {
        ObjectNode result = JSON.objectNode();
        result.put("resultType", "input_required");
        result.set("inputRequests", inputRequests);
        result.put(Params.REQUEST_STATE, requestState);
        return resultLine(id, result);
    }

    /** -32021: the call needs a human's approval, and the request declared no form elicitation. */
    public String renderMissingCapability(RequestId id, ObjectNode requiredCapabilities) {
        ObjectNode data = JSON.objectNode();
        data.set("requiredCapabilities", requiredCapabilities);
        return errorLine(id, ErrorCode.MISSING_CLIENT_CAPABILITY, "this call needs a human's approval: declare the"
                + " elicitation capability (form) in _meta \"" + CLIENT_CAPABILITIES + "\" to be asked", data);
    }

    /** A request from Postern to the client, such as {@code elicitation/create}. */
    public String renderServerRequest(RequestId id, String method, ObjectNode params) {
        return responses.request(id, method, params);
    }

    /** {@code notifications/elicitation/complete}: the out-of-band interaction of URL-mode elicitation {@code elicitationId} ended. */
    public String renderElicitationComplete(String elicitationId) {
        ObjectNode params = JSON.objectNode();
        params.put("elicitationId", elicitationId);
        return responses.notification("notifications/elicitation/complete", params);
    }

    /** Tells the client Postern no longer waits for its answer to request {@code id}. */
    public String renderCancelServerRequest(RequestId id, String reason) {
        ObjectNode params = JSON.objectNode();
        params.set("requestId", id.toJson());
        params.put("reason", reason);
        return responses.notification("notifications/cancelled", params);
    }

    /** An error response line; {@code id} null means JSON {@code null}. */
    public String errorLine(RequestId id, ErrorCode code, String message) {
        return errorLine(id, code, message, null);
    }

    private String errorLine(RequestId id, ErrorCode code, String message, ObjectNode data) {
        String line = responses.error(id, code, message, data);
        close(id, OptionalInt.of(code.code()), false);
        return line;
    }

    private String resultLine(RequestId id, ObjectNode result) {
        String line = responses.result(id, result);
        close(id, OptionalInt.empty(), result.path("isError").asBoolean(false));
        return line;
    }

    private Inbound respond(RequestId id, ObjectNode result) {
        return new Inbound.Respond(resultLine(id, result), Optional.empty());
    }

    private Inbound refuse(RequestId id, ErrorCode code, String message, Stage stage, Frame frame) {
        span(id).rejected(stage, code.name(), Optional.empty());
        return new Inbound.Respond(errorLine(id, code, message), Optional.of(rejection(stage, code.name(), frame)));
    }

    private static String instructions() {
        // Names no kind of effect: postern_targets lists every registered kind's allowances.
        return "Postern performs only what its operator's policy allows. "
                + "Call postern_targets to see what is allowed: each kind's targets and what may be done there.";
    }

    private static Rejection rejection(Stage stage, String reason, Frame frame) {
        return new Rejection(stage, reason, Optional.empty(), frame.sha256());
    }

    private static Supplier<ToolCatalog> constant(ToolCatalog catalog) {
        return () -> catalog;
    }
}
