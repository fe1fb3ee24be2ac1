package dev.postern.policy;

import dev.postern.policy.model.Printable;
import dev.postern.policy.Decision.Deny;
import dev.postern.policy.Decision.Permit;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.model.ForbiddenHeaders;
import dev.postern.policy.model.HostSyntax;
import dev.postern.policy.model.HttpSyntax;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The HTTP rules of DESIGN §4. The URL is canonicalized first, rejecting rather than repairing
 * anything ambiguous (odd IPv4 forms, dot segments, encoded separators, user info, fragments);
 * then the first target with the same origin whose method, path and header rules all pass
 * permits it. Rule ids are part of the public surface (README, "Rule ids").
 */
final class HttpRules implements Rules<HttpRequestAction> {

    static final int MAX_URL_LENGTH = HttpRequestAction.MAX_URL_LENGTH;

    private static final Pattern PERCENT_SEPARATOR = Pattern.compile("%(2[eEfF]|5[cC])");
    private static final Pattern BAD_PERCENT = Pattern.compile("%(?![0-9A-Fa-f]{2})");

    private final List<HttpTarget> targets;

    HttpRules(List<HttpTarget> targets) {
        this.targets = targets;
    }

    @Override
    public Class<HttpRequestAction> actionType() {
        return HttpRequestAction.class;
    }

    @Override
    public Decision decide(HttpRequestAction request) {
        if (!HttpSyntax.isMethod(request.method())) {
            return new Deny("http.method", "method must be upper-case letters, got \"" + Printable.shown(request.method()) + '"');
        }
        Canonical url;
        try {
            url = canonicalize(request.url());
        } catch (Refusal r) {
            return new Deny(r.rule, r.getMessage());
        }
        for (HeaderField h : request.headers()) {
            Deny bad = checkHeader(h);
            if (bad != null) {
                return bad;
            }
        }
        for (QueryParameter q : request.query()) {
            if (hasControl(q.name()) || hasControl(q.value()) || q.name().isEmpty()) {
                return new Deny("http.query", "query parameter names must be non-empty and no part may hold control characters");
            }
        }
        Deny first = null;
        for (HttpTarget target : targets) {
            if (!target.origin().equals(url.origin)) {
                continue;
            }
            Deny deny = match(target, request, url);
            if (deny == null) {
                URI uri = url.withExtraQuery(request.query());
                String rule = "http.target:" + target.name();
                if (target.needsApproval(request.method())) {
                    return new Decision.ApprovalRequired(new PendingApproval(request, rule,
                            "target " + target.name() + " needs a human's approval for " + request.method(),
                            shown(target, request, uri),
                            () -> new AuthorizedHttpRequest(request, target, uri, request.headers(), rule)));
                }
                return new Permit(new AuthorizedHttpRequest(request, target, uri, request.headers(), rule));
            }
            if (first == null) {
                first = deny;
            }
        }
        return first != null ? first
                : new Deny("http.target", "no target allows " + url.origin.toUrl() + "; see postern_targets");
    }

    /** What a human approves: target, method, the canonical URL, each header the agent set, the body. */
    private static ShownAction shown(HttpTarget target, HttpRequestAction request, URI uri) {
        List<ShownAction.Field> fields = new java.util.ArrayList<>();
        fields.add(new ShownAction.Field("target", target.name()));
        fields.add(new ShownAction.Field("method", request.method()));
        fields.add(new ShownAction.Field("url", uri.toString()));
        for (HeaderField h : request.headers()) {
            fields.add(new ShownAction.Field("header " + h.name(), h.value()));
        }
        request.body().ifPresent(b -> fields.add(new ShownAction.Field("body", b)));
        return new ShownAction(HttpRequestAction.TOOL, fields);
    }

    private static Deny match(HttpTarget target, HttpRequestAction request, Canonical url) {
        if (!target.methods().contains(request.method())) {
            return new Deny("http.method", "target " + target.name() + " allows methods " + sorted(target.methods())
                    + ", not " + request.method());
        }
        boolean under = target.pathPrefixes().stream().anyMatch(p -> underPrefix(url.path, p));
        if (!under) {
            return new Deny("http.path", "target " + target.name() + " allows paths under " + target.pathPrefixes()
                    + ", not " + url.path);
        }
        for (HeaderField h : request.headers()) {
            if (!target.headers().contains(h.name().toLowerCase(Locale.ROOT))) {
                return new Deny("http.header", "target " + target.name() + " does not allow header " + Printable.shown(h.name()));
            }
        }
        return null;
    }

    /** {@code /api} covers {@code /api} and {@code /api/x}, never {@code /apix}; {@code /repos/} covers {@code /repos/x}. */
    static boolean underPrefix(String path, String prefix) {
        if (path.equals(prefix)) {
            return true;
        }
        return prefix.endsWith("/") ? path.startsWith(prefix) : path.startsWith(prefix + '/');
    }

    private static Deny checkHeader(HeaderField h) {
        String name = h.name();
        if (!HttpSyntax.isToken(name)) {
            return new Deny("http.header.syntax", "header name must be an RFC 9110 token, got \"" + Printable.shown(name) + '"');
        }
        for (int i = 0; i < h.value().length(); i++) {
            char c = h.value().charAt(i);
            if ((c < 0x20 && c != '\t') || (c >= 0x7f && c < 0xa0)) {
                return new Deny("http.header.syntax", "header " + Printable.shown(name) + " has a control character in its value");
            }
            if (c > 0xff) {
                // HTTP/1.1 carries header values as bytes; HttpClient would send such a character as '?'.
                return new Deny("http.header.syntax", "header " + Printable.shown(name)
                        + " has a character above U+00FF in its value; send it percent-encoded or in the body");
            }
        }
        if (ForbiddenHeaders.contains(name)) {
            return new Deny("http.header.forbidden", "header " + Printable.shown(name) + " is set by Postern, never by the agent");
        }
        return null;
    }

    /** A URL reduced to what the rules compare, or a refusal naming the rule it broke. */
    static Canonical canonicalize(String raw) throws Refusal {
        if (raw.length() > MAX_URL_LENGTH) {
            throw new Refusal("http.url.syntax", "url is longer than " + MAX_URL_LENGTH + " characters");
        }
        try {
            raw = HostSyntax.withAsciiHost(raw);
        } catch (IllegalArgumentException e) {
            throw new Refusal("http.url.syntax", "url: " + e.getMessage());
        }
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                throw new Refusal("http.url.syntax", "url must be printable ASCII without spaces (percent-encode the rest)");
            }
        }
        if (raw.indexOf('\\') >= 0) {
            throw new Refusal("http.url.syntax", "url must not contain a backslash");
        }
        if (BAD_PERCENT.matcher(raw).find()) {
            throw new Refusal("http.url.syntax", "url has a malformed percent-escape");
        }
        URI uri;
        try {
            uri = new URI(raw);
        } catch (URISyntaxException e) {
            throw new Refusal("http.url.syntax", "url is not a valid URI: " + e.getReason());
        }
        try {
            uri = HostSyntax.withoutTrailingDot(uri);
        } catch (URISyntaxException e) {
            throw new Refusal("http.url.syntax", "url is not a valid URI: " + e.getReason());
        }
        if (!uri.isAbsolute() || uri.isOpaque()) {
            throw new Refusal("http.url.syntax", "url must be absolute, like https://host/path");
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new Refusal("http.url.scheme", "url scheme must be http or https, got " + scheme);
        }
        if (uri.getRawUserInfo() != null) {
            throw new Refusal("http.url.userinfo", "url must not carry user info");
        }
        if (uri.getRawFragment() != null) {
            throw new Refusal("http.url.fragment", "url must not carry a fragment");
        }
        String host = uri.getHost();
        if (host == null) {
            throw new Refusal("http.url.host", "url must have a host name or address");
        }
        try {
            host = HostSyntax.canonical(host);
        } catch (IllegalArgumentException e) {
            throw new Refusal("http.url.host", e.getMessage());
        }
        int port = uri.getPort() == -1 ? Origin.defaultPort(scheme) : uri.getPort();
        if (port < 1 || port > 65535) {
            throw new Refusal("http.url.port", "url port must be 1..65535, got " + port);
        }
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (PERCENT_SEPARATOR.matcher(path).find()) {
            throw new Refusal("http.url.path", "path must not percent-encode '.', '/' or '\\'");
        }
        checkEscapes(path);
        for (String segment : path.substring(1).split("/", -1)) {
            // Servlet containers drop ";params" before resolving dot segments, so "..;" climbs too.
            int semicolon = segment.indexOf(';');
            String bare = semicolon >= 0 ? segment.substring(0, semicolon) : segment;
            if (bare.equals(".") || bare.equals("..")) {
                throw new Refusal("http.url.path", "path must not contain dot segments");
            }
        }
        if (path.contains("//")) {
            throw new Refusal("http.url.path", "path must not contain empty segments");
        }
        return new Canonical(new Origin(scheme, host, port), path, uri.getRawQuery());
    }

    /**
     * Refuses path escapes a server might decode into something the rules never saw: {@code %25}
     * (a server that decodes twice turns {@code %252e%252e} into {@code ..}), escapes of control
     * characters ({@code %00} ends a C string early), and escapes that are not strict UTF-8 (the
     * overlong {@code %c0%ae} is a dot to a lenient decoder).
     */
    private static void checkEscapes(String path) throws Refusal {
        if (path.indexOf('%') < 0) {
            return;
        }
        byte[] decoded = new byte[path.length()];
        int n = 0;
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c != '%') {
                decoded[n++] = (byte) c;
                continue;
            }
            int b = Integer.parseInt(path.substring(i + 1, i + 3), 16);
            i += 2;
            if (b == '%') {
                throw new Refusal("http.url.path", "path must not percent-encode '%' (%25): a server that decodes twice would see another escape");
            }
            if (b < 0x20 || b == 0x7f) {
                throw new Refusal("http.url.path", String.format("path must not percent-encode a control character (%%%02X)", b));
            }
            decoded[n++] = (byte) b;
        }
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(decoded, 0, n));
        } catch (CharacterCodingException e) {
            throw new Refusal("http.url.path", "path escapes must decode to valid UTF-8 (no overlong forms such as %C0%AE)");
        }
    }

    private static boolean hasControl(String s) {
        return s.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
    }

    private static List<String> sorted(Set<String> s) {
        return s.stream().sorted().toList();
    }

    /** A URL as the rules see it. */
    record Canonical(Origin origin, String path, String rawQuery) {
        URI withExtraQuery(List<QueryParameter> extra) {
            StringBuilder q = new StringBuilder(rawQuery == null ? "" : rawQuery);
            for (QueryParameter p : extra) {
                if (q.length() > 0) {
                    q.append('&');
                }
                q.append(encode(p.name())).append('=').append(encode(p.value()));
            }
            return URI.create(origin.toUrl() + path + (q.length() > 0 ? "?" + q : ""));
        }

        private static String encode(String s) {
            return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
        }
    }

    /** A URL the rules refuse to interpret. */
    static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;
        final String rule;

        Refusal(String rule, String message) {
            super(message);
            this.rule = rule;
        }
    }
}
