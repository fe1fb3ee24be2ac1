package dev.postern.protocol.archfixtures;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.action.HttpRequestAction;
import java.util.List;
import java.util.Optional;

/** Compliant: the protocol binds JSON to a typed action, with Jackson and the kernel. Never run. */
public final class ToolBinder {
    static HttpRequestAction bind(JsonNode arguments) {
        return new HttpRequestAction(arguments.path("method").asText(), arguments.path("url").asText(),
                List.of(), List.of(), Optional.empty());
    }
}
