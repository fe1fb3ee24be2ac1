package dev.postern.protocol.mcp;

import java.util.Objects;

/** The server's name and version, as {@code initialize} reports them. */
public record ServerInfo(String name, String version) {
    public ServerInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
    }
}
