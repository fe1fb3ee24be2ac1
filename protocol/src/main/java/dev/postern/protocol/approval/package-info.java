/**
 * Asking a human to approve one action over MCP (DESIGN §5, "Approval"): the elicitation form and
 * the strict reading of its answer ({@link dev.postern.protocol.approval.ApprovalForm}), and the
 * stateless era's integrity-protected, single-use {@code requestState}
 * ({@link dev.postern.protocol.approval.RequestStateCodec}). Performs no I/O.
 */
package dev.postern.protocol.approval;
