/**
 * The MCP session as a state machine over frames: lifecycle (initialize, initialized, ping), the
 * tool methods, and the decision of what each frame becomes — an answer, an action for the policy,
 * a cancellation, or the end of the session. Performs no I/O and no effect.
 */
package dev.postern.protocol.mcp;
