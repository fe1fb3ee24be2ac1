package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.model.TypedTool;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Readers for fields several kinds' sections share: string lists, a rate limit, a string param, a typed tool's name. Stateless. */
final class Fields {
    private Fields() {
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.textValue()));
        return out;
    }

    /** Whether an operation's {@code confirm} (true, false or a channel's word; absent: false) marks it. */
    static boolean confirmed(JsonNode confirm) {
        return confirm.isTextual() || confirm.asBoolean(false);
    }

    /** The channel an operation's {@code confirm} names, if it names one (rather than {@code true}). */
    static java.util.Optional<ApprovalChannel> confirmChannel(JsonNode confirm) {
        return confirm.isTextual() ? ApprovalChannel.of(confirm.textValue()) : java.util.Optional.empty();
    }

    /** An allowance's {@code rateLimit}, if it has one; the schema has checked its bounds. */
    static Optional<RateLimit> rateLimit(JsonNode allowance) {
        JsonNode r = allowance.get("rateLimit");
        return r == null ? Optional.empty() : Optional.of(RateLimit.perSeconds(r.get("calls").asInt(), r.get("perSeconds").asLong()));
    }

    /** A string param of an SSH command or SQL statement: an optional pattern (which must compile) and enum, a length bound. */
    static ParamSpec.StringParam stringParam(KindSection.Reading reading, String at, JsonNode p) throws ConfigException {
        Optional<Pattern> pattern = Optional.empty();
        if (p.has("pattern")) {
            try {
                pattern = Optional.of(Pattern.compile(p.get("pattern").textValue()));
            } catch (PatternSyntaxException ex) {
                throw reading.error(at + "/pattern", "a valid regular expression (" + ex.getDescription() + ")");
            }
        }
        Optional<List<String>> allowed = p.has("enum") ? Optional.of(strings(p.get("enum"))) : Optional.empty();
        return new ParamSpec.StringParam(pattern, allowed, p.path("maxLength").asInt(ConfigDefaults.STRING_PARAM_MAX_LENGTH));
    }

    /** An operation's {@code tool} (at {@code at}{@code /tool}), if it asks to be offered as a tool of its own. */
    static Optional<TypedTool> typedTool(KindSection.Reading reading, String at, JsonNode operation) throws ConfigException {
        JsonNode tool = operation.get("tool");
        if (tool == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(new TypedTool(tool.textValue()));
        } catch (IllegalArgumentException e) {
            throw reading.error(at + "/tool", e.getMessage());
        }
    }
}
