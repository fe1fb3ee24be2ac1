package dev.postern.policy;

import dev.postern.policy.action.UpstreamCallAction;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import java.util.Objects;

/**
 * A permitted call of one upstream tool: the server (how to start it, its limits), the allowlisted
 * tool with the pin the call was judged against (the executor refuses if the live definition moved
 * since), and the arguments exactly as they will be sent. Immutable.
 */
public final class AuthorizedUpstreamCall extends AuthorizedAction {
    private final UpstreamCallAction action;
    private final UpstreamServer server;
    private final UpstreamTool tool;

    AuthorizedUpstreamCall(UpstreamCallAction action, UpstreamServer server, UpstreamTool tool, String rule) {
        super(rule);
        this.action = Objects.requireNonNull(action, "action");
        this.server = Objects.requireNonNull(server, "server");
        this.tool = Objects.requireNonNull(tool, "tool");
    }

    @Override
    public UpstreamCallAction action() {
        return action;
    }

    @Override
    public Allowance allowance() {
        return server;
    }

    public UpstreamServer server() {
        return server;
    }

    public UpstreamTool tool() {
        return tool;
    }

    /** The arguments to send, as the agent gave them after validation. */
    public JsonObject arguments() {
        return action.arguments();
    }

    @Override
    public String toString() {
        return "AuthorizedUpstreamCall[" + tool.name() + " on " + server.name() + ", rule=" + rule() + ']';
    }
}
