package dev.postern.protocol.tools;

import java.util.Map;
import static dev.postern.protocol.tools.ToolCatalog.JSON;
import static dev.postern.protocol.tools.ToolCatalog.MAX_BODY;
import static dev.postern.protocol.tools.ToolCatalog.MAX_URL;
import static dev.postern.protocol.tools.ToolCatalog.MAX_VALUE;
import static dev.postern.protocol.tools.ToolCatalog.annotations;
import static dev.postern.protocol.tools.ToolCatalog.objectSchema;
import static dev.postern.protocol.tools.ToolCatalog.pairs;
import static dev.postern.protocol.tools.ToolCatalog.stringMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.HttpSyntax;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Policy;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.transport.Sha256;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code http_request}: one HTTP request to a configured target, presented once for every surface. Stateless. */
public final class HttpRequestKind implements StaticToolKind<HttpRequestAction, AuthorizedHttpRequest, HttpResponseOutcome> {
    public static final String TOOL = HttpRequestAction.TOOL;
    /**
     * The largest body that always comes back whole, whatever its bytes, beside up to 100 KiB of
     * rendered headers: as base64 it renders 8,000,000 bytes in the result's two copies, within the
     * gateway's cap of {@link ToolResults#DEFAULT_MAX_RESULT_BYTES}.
     */
    public static final int WHOLE_BODY_BYTES = 3_000_000;

    /** A scheme a WHATWG URL parser reads an authority after with any number of slashes or backslashes, or none. */
    private static final Pattern SPECIAL_SCHEME = Pattern.compile("(?i)(https?|wss?|ftp|file):");
    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:");

    @Override
    public String toolName() {
        return TOOL;
    }

    @Override
    public String displayName() {
        return "HTTP request";
    }

    @Override
    public Class<HttpRequestAction> actionType() {
        return HttpRequestAction.class;
    }

    @Override
    public Class<AuthorizedHttpRequest> permitType() {
        return AuthorizedHttpRequest.class;
    }

    @Override
    public Class<HttpResponseOutcome> outcomeType() {
        return HttpResponseOutcome.class;
    }

    @Override
    public Class<? extends Allowance> allowanceType() {
        return HttpTarget.class;
    }

    @Override
    public String allowancesNoun() {
        return "HTTP targets";
    }

    @Override
    public String allowancesSummary() {
        return "HTTP targets (origin, methods, path prefixes, headers)";
    }

    @Override
    public String targetsField() {
        return "http";
    }

    @Override
    public Tool tool(Policy policy) {
        ObjectNode in = objectSchema();
        ObjectNode p = in.putObject("properties");
        p.putObject("method").put("type", "string").put("pattern", "^" + HttpSyntax.METHOD + "$")
                .put("description", "HTTP method, upper case");
        p.putObject("url").put("type", "string").put("minLength", 1).put("maxLength", MAX_URL)
                .put("description", "Absolute http(s) URL under a configured target");
        p.set("query", stringMap("Extra query parameters, encoded by Postern", 4096)
                .set("propertyNames", JSON.objectNode().put("minLength", 1).put("maxLength", 256)));
        p.set("headers", stringMap("Request headers the target allows", MAX_VALUE)
                .set("propertyNames", JSON.objectNode().put("pattern", "^" + HttpSyntax.TOKEN_CHAR + "{1,256}$")));
        p.putObject("body").put("type", "string").put("maxLength", MAX_BODY).put("description", "Request body, as text");
        in.putArray("required").add("method").add("url");

        ObjectNode out = outputSchema();

        boolean asks = policy.allowances(HttpTarget.class).stream().anyMatch(t -> !t.confirm().isEmpty());
        return new Tool(TOOL, "HTTP request",
                "Send one HTTP request to a target the operator allows. Postern adds credentials itself; "
                        + "redirects are returned, not followed. Call postern_targets to see what is allowed. " + BODY
                        + (asks ? ToolCatalog.WAITS_FOR_A_HUMAN : ""),
                in, out, annotations(false, true, false, true), HttpRequestKind::bind);
    }

    /** How a response body comes back, told in every HTTP tool's description. */
    private static final String BODY = "A body too large for the result as text comes back base64 (bodyEncoding says which);"
            + " a body of up to " + WHOLE_BODY_BYTES + " bytes within the target's maxResponseBytes always comes back whole, and"
            + " one past what a result can carry is cut to fit with truncated: true.";
    /** RFC 9110's safe methods: a target that allows only these is offered as read-only. */
    private static final List<String> SAFE = List.of("GET", "HEAD", "OPTIONS", "TRACE");
    /** RFC 9110's idempotent methods: the safe ones, PUT and DELETE. */
    private static final List<String> IDEMPOTENT = List.of("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE");

    /** What a result holds, the same for {@code http_request} and every typed target tool. */
    private static ObjectNode outputSchema() {
        ObjectNode out = objectSchema();
        ObjectNode o = out.putObject("properties");
        o.putObject("target").put("type", "string");
        o.putObject("status").put("type", "integer");
        ObjectNode header = JSON.objectNode().put("type", "object").put("additionalProperties", false);
        header.putObject("properties").<ObjectNode>set("name", JSON.objectNode().put("type", "string"))
                .set("value", JSON.objectNode().put("type", "string"));
        header.putArray("required").add("name").add("value");
        o.putObject("headers").put("type", "array").set("items", header);
        o.putObject("body").put("type", "string");
        o.putObject("bodyEncoding").put("type", "string").putArray("enum").add("text").add("base64");
        o.putObject("truncated").put("type", "boolean");
        out.putArray("required").add("target").add("status").add("headers").add("body").add("bodyEncoding").add("truncated");
        return out;
    }

    /**
     * One tool per target whose config names a {@code tool}: {@code method} from the target's methods,
     * {@code path} under one of its prefixes (on a segment boundary, no query or fragment: {@code query} holds
     * those), {@code headers} only those the target allows (by their lower-case names), {@code body} only when a
     * method is not safe. Read-only and not destructive when every method is safe, idempotent when every
     * method is; a call is {@code http_request} with the URL the target's base URL and the path.
     */
    @Override
    public List<Tool> typedTools(Policy policy) {
        List<Tool> tools = new ArrayList<>();
        for (HttpTarget t : policy.allowances(HttpTarget.class)) {
            t.tool().ifPresent(name -> tools.add(typedTool(name.name(), t)));
        }
        return List.copyOf(tools);
    }

    private Tool typedTool(String name, HttpTarget t) {
        String base = t.origin().toUrl();
        List<String> methods = new TreeSet<>(t.methods()).stream().toList();
        ObjectNode in = objectSchema();
        ObjectNode p = in.putObject("properties");
        ObjectNode method = p.putObject("method").put("type", "string").put("description", "HTTP method, one the target allows");
        methods.forEach(method.putArray("enum")::add);
        StringBuilder under = new StringBuilder();
        for (String prefix : t.pathPrefixes()) {
            under.append(under.length() == 0 ? "" : "|").append(TypedTools.literal(prefix))
                    .append(prefix.endsWith("/") ? "[^?#]*" : "(?:/[^?#]*)?");
        }
        p.putObject("path").put("type", "string").put("minLength", 1).put("maxLength", MAX_URL - base.length())
                .put("pattern", "^(?:" + under + ")$")
                .put("description", "The path after " + base + ", under one of " + t.pathPrefixes() + "; no query or fragment");
        p.set("query", stringMap("Query parameters, encoded by Postern", 4096)
                .set("propertyNames", JSON.objectNode().put("minLength", 1).put("maxLength", 256)));
        if (!t.headers().isEmpty()) {
            ObjectNode headers = p.putObject("headers").put("type", "object").put("additionalProperties", false)
                    .put("description", "Request headers the target allows, by lower-case name");
            ObjectNode allowed = headers.putObject("properties");
            new TreeSet<>(t.headers()).forEach(h -> allowed.putObject(h).put("type", "string").put("maxLength", MAX_VALUE));
        }
        boolean safe = SAFE.containsAll(methods);
        if (!safe) { // a safe request's content has no meaning a server should act on (RFC 9110 9.3)
            p.putObject("body").put("type", "string").put("maxLength", MAX_BODY).put("description", "Request body, as text");
        }
        in.putArray("required").add("method").add("path");
        return new Tool(name, "HTTP requests to " + t.name(),
                "Send one HTTP request to the target " + t.name() + " at " + base + ": methods " + methods + ", paths under "
                        + t.pathPrefixes() + ". Postern adds credentials itself; redirects are returned, not followed. " + BODY
                        + (t.confirm().isEmpty() ? "" : ToolCatalog.WAITS_FOR_A_HUMAN),
                in, outputSchema(), annotations(safe, !safe, IDEMPOTENT.containsAll(methods), true),
                TypedTools.binding(typed -> {
                    ObjectNode generic = typed.deepCopy();
                    generic.remove("path");
                    generic.put("url", base + typed.get("path").textValue());
                    return generic;
                }, HttpRequestKind::bind));
    }

    private static Binding bind(JsonNode args) {
        List<QueryParameter> query = new ArrayList<>();
        pairs(args.get("query")).forEach((k, v) -> query.add(new QueryParameter(k, v)));
        List<HeaderField> headers = new ArrayList<>();
        pairs(args.get("headers")).forEach((k, v) -> headers.add(new HeaderField(k, v)));
        Optional<String> body = Optional.ofNullable(args.get("body")).map(JsonNode::textValue);
        return new Binding.ToAction(new HttpRequestAction(
                args.get("method").textValue(), args.get("url").textValue(), query, headers, body));
    }

    @Override
    public ArrayNode describeForAgent(Policy policy) {
        ArrayNode http = JSON.arrayNode();
        for (HttpTarget t : policy.allowances(HttpTarget.class)) {
            ObjectNode n = http.addObject();
            n.put("name", t.name());
            n.put("baseUrl", t.origin().toUrl());
            t.methods().stream().sorted().forEach(n.putArray("methods")::add);
            t.pathPrefixes().forEach(n.putArray("pathPrefixes")::add);
            t.headers().stream().sorted().forEach(n.putArray("headers")::add);
            n.put("authenticated", t.auth().isPresent());
            n.put("timeoutMs", t.timeout().toMillis());
            n.put("maxResponseBytes", t.maxResponseBytes());
            n.put("onOversizeResponse", t.onOversizeResponse().name().toLowerCase(Locale.ROOT));
            t.confirm().stream().sorted().forEach(n.putArray("confirm")::add);
            RateLimitShown.toAgent(n, t);
            t.tool().ifPresent(tool -> n.put("tool", tool.name()));
        }
        return http;
    }

    @Override
    public String describeForOperator(Policy policy) {
        StringBuilder b = new StringBuilder();
        for (HttpTarget t : policy.allowances(HttpTarget.class)) {
            b.append("http target ").append(t.name()).append(": ").append(new TreeSet<>(t.methods()))
                    .append(' ').append(t.origin().toUrl()).append(" under ").append(t.pathPrefixes());
            if (!t.headers().isEmpty()) {
                b.append(", headers ").append(new TreeSet<>(t.headers()));
            }
            t.auth().ifPresent(a -> b.append(", auth ").append(a.scheme().name().toLowerCase(Locale.ROOT))
                    .append(" with credential ").append(a.credential()));
            t.trustStore().ifPresent(s -> {
                b.append(", trusting only the ").append(s.type()).append(" trust store ").append(s.file());
                s.password().ifPresent(p -> b.append(" (opened with credential ").append(p).append(')'));
            });
            if (t.onOversizeResponse() == HttpTarget.OversizeResponse.REFUSE) {
                b.append(", responses over ").append(t.maxResponseBytes()).append(" bytes refused");
            }
            if (!t.confirm().isEmpty()) {
                b.append(", ").append(new TreeSet<>(t.confirm())).append(" only with a human's approval");
            }
            RateLimitShown.toOperator(b, t);
            b.append(t.allowPrivateAddresses() ? ", private addresses allowed" : "");
            b.append(t.propagateTraceContext() ? ", trace context sent (traceparent)" : "");
            t.tool().ifPresent(tool -> b.append(", also as tool ").append(tool.name()));
            b.append('\n');
        }
        return b.toString();
    }

    @Override
    public ObjectNode render(HttpResponseOutcome r) {
        return render(r, StreamFit.natural(body(r)));
    }

    /**
     * As {@link #render}, with the body base64 when that renders smaller and the result would not
     * fit {@code maxRenderedBytes} otherwise, and cut to fit ({@code truncated: true}) when even that
     * would not fit.
     */
    @Override
    public ObjectNode renderWithin(HttpResponseOutcome r, long maxRenderedBytes) {
        StreamFit.Piece natural = StreamFit.natural(body(r));
        long fixed = ToolResults.renderedSuccess(render(r, natural)) - natural.cost();
        return render(r, StreamFit.fit(List.of(body(r)), maxRenderedBytes - fixed).get(0));
    }

    private static StreamFit.Stream body(HttpResponseOutcome r) {
        return new StreamFit.Stream(r.body(), textual(contentType(r)) || r.body().length == 0);
    }

    private static String contentType(HttpResponseOutcome r) {
        String contentType = "";
        for (HeaderField h : r.headers()) {
            if (h.name().equalsIgnoreCase("content-type")) {
                contentType = h.value().toLowerCase(Locale.ROOT);
            }
        }
        return contentType;
    }

    private static ObjectNode render(HttpResponseOutcome r, StreamFit.Piece body) {
        ObjectNode n = JSON.objectNode();
        n.put("target", r.target());
        n.put("status", r.status());
        var headers = n.putArray("headers");
        for (HeaderField h : r.headers()) {
            headers.addObject().put("name", h.name()).put("value", h.value());
        }
        n.put("body", body.value());
        n.put("bodyEncoding", body.encoding());
        n.put("truncated", r.truncated() || body.cut());
        return n;
    }

    private static boolean textual(String contentType) {
        return contentType.startsWith("text/") || contentType.startsWith("application/json")
                || contentType.contains("+json") || contentType.startsWith("application/xml") || contentType.contains("+xml")
                || contentType.startsWith("application/javascript") || contentType.startsWith("application/x-www-form-urlencoded");
    }

    @Override
    public String explain(AuthorizedHttpRequest h) {
        StringBuilder b = new StringBuilder();
        b.append("would send: ").append(h.method()).append(' ').append(h.uri().toASCIIString());
        b.append("\n  target: ").append(h.target().name());
        for (HeaderField f : h.headers()) {
            b.append("\n  header: ").append(f.name()).append(": ").append(f.value());
        }
        h.body().ifPresent(body -> b.append("\n  body: ").append(body.getBytes(StandardCharsets.UTF_8).length).append(" bytes"));
        h.target().auth().ifPresent(a -> b.append("\n  auth: ").append(a.scheme().name().toLowerCase(Locale.ROOT))
                .append(" with credential ").append(a.credential()).append(", added by the executor"));
        b.append("\n  limits: timeout ").append(h.target().timeout().toMillis()).append(" ms, at most ")
                .append(h.target().maxResponseBytes()).append(" response bytes");
        if (!h.target().allowPrivateAddresses()) {
            b.append("; non-public addresses refused at connect time");
        }
        return b.toString();
    }

    @Override
    public void journalIntent(AuthorizedHttpRequest h, ObjectNode row, boolean redactArguments) {
        row.put("target", h.target().name());
        row.put("method", h.method());
        String url = h.uri().toASCIIString();
        if (redactArguments) {
            row.put("preview", h.method() + ' ' + h.uri().getScheme() + "://" + h.uri().getRawAuthority() + h.uri().getRawPath());
            row.put("argumentsSha256", Sha256.of(url.getBytes(StandardCharsets.UTF_8)));
        } else {
            row.put("url", url);
            row.put("preview", h.method() + ' ' + url);
        }
        h.body().ifPresent(body -> row.put("bodyBytes", body.getBytes(StandardCharsets.UTF_8).length));
    }

    /**
     * A refused URL's row: its host, and the call as asked, both without the URL's user info. User
     * info is a credential the agent pasted, so it is dropped before anything is written or hashed
     * (the row says {@code userInfoDropped}, never what it was), whether the URL parses or not.
     */
    @Override
    public void journalDenial(HttpRequestAction a, ObjectNode row, boolean redactArguments) {
        String url = withoutUserInfo(a.url());
        StringBuilder asked = new StringBuilder(url);
        for (QueryParameter q : a.query()) {
            asked.append(asked.indexOf("?") < 0 ? '?' : '&').append(q.name()).append('=').append(q.value());
        }
        origin(url).ifPresent(o -> row.put("host", o.host()));
        if (!url.equals(a.url())) {
            row.put("userInfoDropped", true);
        }
        if (redactArguments) {
            row.put("refused", a.method() + ' ' + origin(url).map(Origin::url).orElse("(a URL that does not parse)"));
            row.put("argumentsSha256", Sha256.of(asked.toString().getBytes(StandardCharsets.UTF_8)));
        } else {
            row.put("refused", a.method() + ' ' + asked);
        }
        a.body().ifPresent(body -> row.put("bodyBytes", body.getBytes(StandardCharsets.UTF_8).length));
    }

    /**
     * {@code url} without user info, read as leniently as a client would, since the URL was refused
     * and may not parse: after leading spaces and control characters, the authority starts after
     * the scheme and any run of slashes and backslashes (or none) for a scheme such as {@code http}
     * that browsers read so, after {@code //} for any other scheme, or else at the start; it ends
     * at the first {@code / \\ ? #}; everything in it up to its last {@code @} is dropped. Limits:
     * a URL mangled further (a tab inside its scheme) may keep its user info; the policy refuses
     * every such URL, but its row is only as clean as this reading.
     */
    static String withoutUserInfo(String url) {
        int lead = 0;
        while (lead < url.length() && url.charAt(lead) <= ' ') {
            lead++;
        }
        Matcher special = SPECIAL_SCHEME.matcher(url).region(lead, url.length());
        Matcher scheme = SCHEME.matcher(url).region(lead, url.length());
        int start;
        if (special.lookingAt()) {
            start = special.end();
            while (start < url.length() && (url.charAt(start) == '/' || url.charAt(start) == '\\')) {
                start++;
            }
        } else {
            int afterScheme = scheme.lookingAt() ? scheme.end() : lead;
            start = url.startsWith("//", afterScheme) ? afterScheme + 2 : lead;
        }
        int end = start;
        while (end < url.length() && "/\\?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        int at = url.lastIndexOf('@', end - 1);
        return at < start ? url : url.substring(0, start) + url.substring(at + 1);
    }

    /** A refused URL's scheme and authority, and its host (with port), if it parses at all. */
    private record Origin(String url, String host) {
    }

    private static Optional<Origin> origin(String url) {
        try {
            URI u = new URI(url);
            return u.getScheme() == null || u.getRawAuthority() == null ? Optional.empty()
                    : Optional.of(new Origin(u.getScheme() + "://" + u.getRawAuthority(), u.getRawAuthority()));
        } catch (URISyntaxException e) {
            return Optional.empty();
        }
    }

    @Override
    public void journalOutcome(HttpResponseOutcome r, ObjectNode row) {
        row.put("status", r.status());
        row.put("bytes", r.body().length);
        row.put("truncated", r.truncated());
    }

    /** Method, URL (user info dropped, as in the denial row, and then {@code userInfoDropped}), query and headers; no body. */
    @Override
    public ObjectNode asked(HttpRequestAction a) {
        ObjectNode n = JSON.objectNode();
        n.put("method", a.method());
        String url = withoutUserInfo(a.url());
        n.put("url", url);
        if (!url.equals(a.url())) {
            n.put("userInfoDropped", true);
        }
        ArrayNode query = n.putArray("query");
        a.query().forEach(q -> query.addObject().put("name", q.name()).put("value", q.value()));
        ArrayNode headers = n.putArray("headers");
        a.headers().forEach(h -> headers.addObject().put("name", h.name()).put("value", h.value()));
        return n;
    }

    /** Empty for a URL whose user info was dropped: the journal does not hold what was asked. The body is always empty. */
    @Override
    public Optional<HttpRequestAction> actionOf(JsonNode asked) {
        if (asked.has("userInfoDropped")) {
            return Optional.empty();
        }
        Optional<String> method = AskedFields.text(asked, "method");
        Optional<String> url = AskedFields.text(asked, "url");
        Optional<List<Map.Entry<String, String>>> query = AskedFields.pairs(asked, "query");
        Optional<List<Map.Entry<String, String>>> headers = AskedFields.pairs(asked, "headers");
        if (method.isEmpty() || url.isEmpty() || query.isEmpty() || headers.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new HttpRequestAction(method.get(), url.get(),
                query.get().stream().map(e -> new QueryParameter(e.getKey(), e.getValue())).toList(),
                headers.get().stream().map(e -> new HeaderField(e.getKey(), e.getValue())).toList(), Optional.empty()));
    }
}
