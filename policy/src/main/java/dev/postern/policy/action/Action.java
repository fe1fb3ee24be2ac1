package dev.postern.policy.action;

import dev.postern.policy.RegistrationPoint;

/**
 * One external effect an agent asks for. The set is closed: a new kind of effect is a new permitted
 * record here, a rule for it in the engine, and an adapter (see CONTRIBUTING.md).
 */
@RegistrationPoint("the kind's action record in permits")
public sealed interface Action permits HttpRequestAction, SshCommandAction, SqlQueryAction, UpstreamCallAction {
}
