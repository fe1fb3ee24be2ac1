package dev.postern.policy.model;

import java.net.IDN;

/**
 * Puts a URL's host into its IDNA ASCII form (IDNA 2003, {@link IDN#toASCII} with STD3 rules), so
 * that a non-ASCII host and its punycode spelling are compared as one. Only the host may hold
 * non-ASCII characters; anywhere else they must be percent-encoded, and the URL is refused.
 * Stateless.
 */
public final class AsciiHosts {
    private AsciiHosts() {
    }

    /** {@code url} with an ASCII host; unchanged when it is all ASCII already. */
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
        if (last.isEmpty() || last.chars().allMatch(Character::isDigit) || last.toLowerCase(java.util.Locale.ROOT).startsWith("0x")) {
            // "127。0。0。1" maps to an address: rejected, not repaired; addresses are written in ASCII.
            throw new IllegalArgumentException("an internationalized host must be a domain name, not an address");
        }
        return url.substring(0, start) + ascii + port + rest;
    }
}
