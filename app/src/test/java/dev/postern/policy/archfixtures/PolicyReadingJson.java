package dev.postern.policy.archfixtures;

import com.fasterxml.jackson.databind.JsonNode;

/** Violation: the kernel reading JSON. Never run. */
public final class PolicyReadingJson {
    private PolicyReadingJson() {
    }

    static boolean allows(JsonNode arguments) {
        return arguments.has("url");
    }
}
