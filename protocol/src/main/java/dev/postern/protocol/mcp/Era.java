package dev.postern.protocol.mcp;

/**
 * Which generation of MCP a connection speaks, fixed by its first era-determining message:
 * {@code initialize} (the handshake era) or a request whose {@code _meta} carries a supported
 * 2026 protocol version (the stateless era). Until then it is undecided.
 */
public enum Era { UNDECIDED, HANDSHAKE, STATELESS }
