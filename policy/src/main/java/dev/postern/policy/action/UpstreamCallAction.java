package dev.postern.policy.action;

import dev.postern.policy.json.JsonValue.JsonObject;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A request to call one tool of one upstream MCP server with these arguments (schema-valid, an
 * immutable canonical value, never a parser's tree), together with what the gateway knew of that
 * tool's live definition when it bound the call: its pin, and the argument names its input schema
 * declares. Empty when the server lists no such tool. The policy judges both against the operator's
 * allowlist.
 */
public record UpstreamCallAction(String server, String tool, JsonObject arguments, Optional<LiveDefinition> live) implements Action {

    /** The pin of the definition the call was bound against and the arguments that definition declares. */
    public record LiveDefinition(String pin, Set<String> declaredArguments) {
        public LiveDefinition {
            Objects.requireNonNull(pin, "pin");
            declaredArguments = Set.copyOf(Objects.requireNonNull(declaredArguments, "declaredArguments"));
        }
    }

    public UpstreamCallAction {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(live, "live");
    }
}
