package dev.postern.policy.action;

/**
 * One external effect an agent asks for. The set is closed: a new kind of effect is a new permitted
 * record here, a rule for it in the engine, and an adapter (see CONTRIBUTING.md).
 */
public sealed interface Action permits HttpRequestAction, SshCommandAction, SqlQueryAction {
}
