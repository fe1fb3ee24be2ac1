package dev.postern.policy.model;

import java.net.IDN;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How Postern reads and writes a host, written once. A URL's host is put into its IDNA ASCII form
 * ({@link #withAsciiHost}), parsed by {@link java.net.URI} (with {@link #withoutTrailingDot} for the
 * one trailing dot the URI parser cannot read), and reduced to its canonical form
 * ({@link #canonical}): the form an {@link Origin} holds, so that a target's {@code baseUrl} and
 * every request URL are compared as the same string. {@link #inAuthority} writes any host or address
 * before a {@code :port}. Stateless.
 *
 * <p>Limits: IPv6 literals are compared as written, lower-cased ({@code ::1} and
 * {@code 0:0:0:0:0:0:0:1} are two hosts); {@link #canonical} trusts the URI parser for the IPv6
 * grammar and does not check it again.
 */
public final class HostSyntax {
    private static final Pattern NUMERIC_LABEL = Pattern.compile("[0-9]+|0[xX][0-9a-fA-F]*");
    private static final Pattern DOTTED_QUAD =
            Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    private static final Pattern HOSTNAME =
            Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
    private static final Pattern TRAILING_HOST_DOT = Pattern.compile("(.*[^.])\\.(:[0-9]*)?");

    private HostSyntax() {
    }

    /**
     * The canonical form of a URL's host as {@link URI#getHost()} returns it (an IPv6 literal in
     * brackets): lower-case; one trailing dot dropped; an IPv6 literal without its brackets, and
     * never with a zone id; an IPv4 address only as a dotted quad of decimal parts without leading
     * zeros (WHATWG reads any host ending in a number as IPv4, so {@code 127.1} or {@code 0x7f.1}
     * could reach an address the rules never saw); any other host a name of letters, digits and
     * hyphens in labels of 1 to 63 characters (IDNA ASCII form for others).
     *
     * @throws IllegalArgumentException saying which of those the host breaks
     */
    public static String canonical(String uriHost) {
        if (uriHost.startsWith("[")) {
            if (uriHost.length() < 3 || !uriHost.endsWith("]")) {
                throw new IllegalArgumentException("an IPv6 address must be one literal in brackets");
            }
            if (uriHost.indexOf('%') >= 0) {
                throw new IllegalArgumentException("IPv6 zone ids are not allowed");
            }
            return uriHost.substring(1, uriHost.length() - 1).toLowerCase(Locale.ROOT);
        }
        String h = uriHost.toLowerCase(Locale.ROOT);
        if (h.endsWith(".")) {
            h = h.substring(0, h.length() - 1);
        }
        String last = h.substring(h.lastIndexOf('.') + 1);
        if (NUMERIC_LABEL.matcher(last).matches()) {
            if (!DOTTED_QUAD.matcher(h).matches()) {
                throw new IllegalArgumentException("IPv4 addresses must be four decimal parts without leading zeros");
            }
            return h;
        }
        if (!HOSTNAME.matcher(h).matches()) {
            throw new IllegalArgumentException("host must be an ASCII host name (IDNA form for others)");
        }
        return h;
    }

    /**
     * {@link URI} reads {@code 127.0.0.1.} as a registry authority with no host (its last label
     * starts with a digit); drop that one trailing dot and parse again, so every check that follows
     * still runs on the result. A URI with a host, or with any other host-less authority, is
     * returned as it came (a host-less one is for the caller to refuse).
     *
     * @throws URISyntaxException when the URI without the dot does not parse
     */
    public static URI withoutTrailingDot(URI uri) throws URISyntaxException {
        String authority = uri.getRawAuthority();
        if (uri.getHost() != null || authority == null) {
            return uri;
        }
        Matcher m = TRAILING_HOST_DOT.matcher(authority);
        if (!m.matches()) {
            return uri;
        }
        return new URI(uri.getScheme() + "://" + m.group(1) + (m.group(2) == null ? "" : m.group(2))
                + (uri.getRawPath() == null ? "" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery())
                + (uri.getRawFragment() == null ? "" : "#" + uri.getRawFragment()));
    }

    /**
     * A host or address as it is written before {@code :port} in a URL, a JDBC URL or a message: an
     * IPv6 literal (any host holding a {@code :}) in brackets, unless it has them already; anything
     * else as it is.
     */
    public static String inAuthority(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? '[' + host + ']' : host;
    }

    /**
     * {@code url} with its host in IDNA ASCII form (IDNA 2003, {@link IDN#toASCII} with STD3 rules),
     * so that a non-ASCII host and its punycode spelling are compared as one; unchanged when it is
     * all ASCII already. Only the host may hold non-ASCII characters; anywhere else they must be
     * percent-encoded, and the URL is refused.
     *
     * @throws IllegalArgumentException naming the first of those rules the URL breaks
     */
    public static String withAsciiHost(String url) {
        if (url.chars().allMatch(c -> c < 0x80)) {
            return url;
        }
        int scheme = url.indexOf("://");
        if (scheme < 0) {
            throw new IllegalArgumentException("a URL with non-ASCII characters must be absolute");
        }
        int start = scheme + 3;
        int end = start;
        while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        String authority = url.substring(start, end);
        if (authority.indexOf('@') >= 0 || authority.startsWith("[")) {
            throw new IllegalArgumentException("only a host name may hold non-ASCII characters");
        }
        int colon = authority.lastIndexOf(':');
        String host = colon < 0 ? authority : authority.substring(0, colon);
        String port = colon < 0 ? "" : authority.substring(colon);
        String rest = url.substring(end);
        if (!(url.substring(0, start) + port + rest).chars().allMatch(c -> c < 0x80)) {
            throw new IllegalArgumentException("only the host may hold non-ASCII characters; percent-encode the rest");
        }
        String ascii;
        try {
            ascii = IDN.toASCII(host, IDN.USE_STD3_ASCII_RULES);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the host is not a valid internationalized domain name");
        }
        String last = ascii.substring(ascii.lastIndexOf('.') + 1);
        if (last.isEmpty() || last.chars().allMatch(Character::isDigit) || last.toLowerCase(Locale.ROOT).startsWith("0x")) {
            // "127。0。0。1" maps to an address: rejected, not repaired; addresses are written in ASCII.
            throw new IllegalArgumentException("an internationalized host must be a domain name, not an address");
        }
        return url.substring(0, start) + ascii + port + rest;
    }
}
