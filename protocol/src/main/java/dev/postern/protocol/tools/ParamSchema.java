package dev.postern.protocol.tools;

import static dev.postern.protocol.tools.ToolCatalog.JSON;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.model.ParamSpec;
import java.util.Map;
import java.util.TreeMap;

/**
 * A command's or statement's params as the JSON Schema fragments describe_policy shows the agent, by
 * name in sorted order; shared by the kinds that take named params. Says nothing of how a value binds.
 */
final class ParamSchema {
    private ParamSchema() {
    }

    /** Every param by name, sorted, each as {@link #describe(ParamSpec)} gives it. */
    static ObjectNode of(Map<String, ParamSpec> params) {
        ObjectNode n = JSON.objectNode();
        new TreeMap<>(params).forEach((name, spec) -> n.set(name, describe(spec)));
        return n;
    }

    /** One param: its JSON type and every bound, pattern or enum it is checked against. */
    static ObjectNode describe(ParamSpec spec) {
        ObjectNode n = JSON.objectNode();
        if (spec instanceof ParamSpec.IntegerParam i) {
            n.put("type", "integer").put("minimum", i.minimum()).put("maximum", i.maximum());
        } else if (spec instanceof ParamSpec.NumberParam d) {
            n.put("type", "number");
            d.minimum().ifPresent(m -> n.put("minimum", m));
            d.maximum().ifPresent(m -> n.put("maximum", m));
        } else if (spec instanceof ParamSpec.BooleanParam) {
            n.put("type", "boolean");
        } else {
            ParamSpec.StringParam s = (ParamSpec.StringParam) spec;
            n.put("type", "string").put("maxLength", s.maxLength());
            s.pattern().ifPresent(p -> n.put("pattern", p.pattern()));
            s.allowed().ifPresent(values -> values.forEach(n.putArray("enum")::add));
        }
        return n;
    }
}
