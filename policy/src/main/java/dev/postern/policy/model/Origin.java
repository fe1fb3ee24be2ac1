package dev.postern.policy.model;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Objects;

/**
 * Scheme, host and port: what a target's {@code baseUrl} pins, and what a request URL is reduced to
 * before the two are compared. The host is in {@link HostSyntax#canonical canonical form} (lower-case
 * ASCII, no trailing dot, an IPv6 literal without brackets); the port is explicit (80 or 443 when
 * the URL leaves it out).
 */
public record Origin(String scheme, String host, int port) {

    public Origin {
        Objects.requireNonNull(scheme, "scheme");
        Objects.requireNonNull(host, "host");
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("scheme must be http or https, got \"" + scheme + '"');
        }
        String canonical;
        try {
            canonical = HostSyntax.canonical(HostSyntax.inAuthority(host));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + ", got \"" + host + '"');
        }
        if (!canonical.equals(host)) {
            throw new IllegalArgumentException("host must be lower-case without a trailing dot or brackets, got \""
                    + host + "\" (canonical: \"" + canonical + "\")");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port);
        }
    }

    /**
     * Parses a target's base URL: an absolute http(s) URL with no user info, path (other than "/"),
     * query or fragment, whose host is read exactly as a request URL's is. A refusal never repeats
     * the URL whole, since user info or a query may hold a secret pasted there: it names the part
     * that is wrong, and shows the host only once the URL is known to carry neither.
     */
    public static Origin parseBaseUrl(String baseUrl) {
        URI uri;
        try {
            uri = HostSyntax.withoutTrailingDot(new URI(HostSyntax.withAsciiHost(baseUrl)));
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("baseUrl is not a URL: " + e.getReason()
                    + (e.getIndex() >= 0 ? " at index " + e.getIndex() : ""));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("baseUrl is not a URL: " + e.getMessage());
        }
        String authority = uri.getRawAuthority();
        if (uri.getScheme() == null || authority == null) {
            throw new IllegalArgumentException("baseUrl must be an absolute http(s) URL with a host");
        }
        if (uri.getRawUserInfo() != null || authority.indexOf('@') >= 0 || uri.getRawQuery() != null
                || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("baseUrl must not carry user info, a query or a fragment");
        }
        if (uri.getHost() == null) {
            // The URI parser read no host (127.1, 0x7f.0.0.1, a_b.example): say why, as HostSyntax would.
            String host = authority.replaceFirst(":[0-9]*$", "");
            try {
                HostSyntax.canonical(host);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("baseUrl's host \"" + host + "\": " + e.getMessage());
            }
            throw new IllegalArgumentException("baseUrl's host \"" + host + "\" is not a host name or address");
        }
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            // Only the first segment is repeated: a webhook URL carries its secret further down its path.
            int second = path.indexOf('/', 1);
            String shown = second < 0 || second == path.length() - 1 ? path : path.substring(0, second + 1) + "…";
            throw new IllegalArgumentException("baseUrl must not carry a path (use pathPrefixes), got \"" + shown + '"');
        }
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        String host;
        try {
            host = HostSyntax.canonical(uri.getHost());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("baseUrl \"" + baseUrl + "\": " + e.getMessage());
        }
        int port = uri.getPort() != -1 ? uri.getPort() : defaultPort(scheme);
        return new Origin(scheme, host, port);
    }

    public static int defaultPort(String scheme) {
        return scheme.equals("https") ? 443 : 80;
    }

    /** The origin as a URL prefix, with the port always written out. */
    public String toUrl() {
        return scheme + "://" + HostSyntax.inAuthority(host) + ':' + port;
    }
}
