package dev.postern.journal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.action.Action;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.Outcome;

/**
 * What the journal's own tests hand it in place of the composition root: rows that name the action's
 * type and its rule (the kinds' real fields are app's {@code JournalRowsTest}), and a verifier over a
 * Jackson parser that refuses duplicate keys and trailing tokens (the gateway's is the protocol's).
 */
final class TestRows {
    private static final JsonMapper STRICT = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** Rows with {@code action} (the action's type), {@code target} (its rule) and {@code result} ({@code ok} or the code). */
    static final ActionRows ROWS = new ActionRows() {
        @Override
        public void intent(AuthorizedAction permit, ObjectNode row, boolean redactArguments) {
            row.put("action", permit.action().getClass().getSimpleName());
            row.put("target", permit.rule());
            row.put("preview", redactArguments ? "-" : permit.action().toString());
        }

        @Override
        public void denial(Action action, ObjectNode row, boolean redactArguments) {
            row.put("tool", action.getClass().getSimpleName());
        }

        @Override
        public void outcome(Outcome outcome, ObjectNode row) {
            row.put("result", outcome instanceof ExecutionFailure f ? f.code().name() : "ok");
        }
    };

    private TestRows() {
    }

    /** The chain verifier over the strict Jackson parser. */
    static ChainVerifier verifier() {
        return new ChainVerifier(text -> {
            try {
                return STRICT.readTree(text);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(e.getOriginalMessage(), e);
            }
        });
    }
}
