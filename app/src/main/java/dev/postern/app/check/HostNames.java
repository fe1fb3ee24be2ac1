package dev.postern.app.check;

/**
 * Which host names an address check resolves: {@code mcp-stdio} judges literal addresses before it
 * serves and leaves DNS queries to a background thread; {@code check-config --deep} does both.
 */
public enum HostNames {
    /** Only literal addresses and {@code localhost} (no DNS query: quick enough for start-up). */
    LITERAL,
    /** Only names that need a DNS query. */
    DNS,
    /** Both. */
    ALL;

    /** Whether {@code host} (unbracketed) is one of the names this value resolves. */
    boolean covers(String host) {
        boolean literal = host.equalsIgnoreCase("localhost") || host.contains(":") || host.matches("[0-9.]+");
        return this == ALL || (this == LITERAL) == literal;
    }
}
