package dev.postern.protocol.mcp;

import java.util.Objects;

/**
 * Who is on the other end, once the era is fixed: the client's name and version as it gave them
 * ({@code clientInfo} in {@code initialize}, or {@code _meta} in the stateless era; {@code unknown}
 * when it gave none), the era and the protocol revision in use. Strings are cut at
 * {@value #MAX_CHARS} characters: they come from the client. Immutable.
 */
public record ClientFacts(String name, String version, Era era, String protocolVersion) {
    public static final int MAX_CHARS = 256;

    public ClientFacts {
        name = bounded(Objects.requireNonNull(name, "name"));
        version = bounded(Objects.requireNonNull(version, "version"));
        Objects.requireNonNull(era, "era");
        protocolVersion = bounded(Objects.requireNonNull(protocolVersion, "protocolVersion"));
    }

    private static String bounded(String s) {
        return s.length() <= MAX_CHARS ? s : s.substring(0, MAX_CHARS);
    }
}
