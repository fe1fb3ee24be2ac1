/**
 * The MCP session as a state machine over frames: lifecycle (initialize, initialized, ping), the
 * tool methods, and the decision of what each frame becomes — an answer, an action for the policy,
 * a cancellation, or the end of the session. Performs no I/O and no effect.
 *
 * <p>Depends on {@code transport} (frames), {@code policy} (actions, decisions, outcomes), Jackson and
 * the other protocol packages; never on an executor or {@code app}
 * ({@code ArchitectureRules.PROTOCOL_DEPENDS_ON_NEITHER_EXECUTORS_NOR_APP}).
 */
package dev.postern.protocol.mcp;
