package dev.postern.protocol.tools;

import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SshCommandSpec;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** One line per parameter of an SSH command: its type and every constraint on it, as check-config shows them. */
final class ParamDescription {
    private ParamDescription() {
    }

    static List<String> lines(SshCommandSpec command) {
        return new TreeMap<>(command.params()).entrySet().stream().map(ParamDescription::line).collect(Collectors.toList());
    }

    private static String line(Map.Entry<String, ParamSpec> e) {
        String head = "param {" + e.getKey() + "}: ";
        if (e.getValue() instanceof ParamSpec.IntegerParam i) {
            return head + "integer, " + i.minimum() + ".." + i.maximum();
        }
        ParamSpec.StringParam s = (ParamSpec.StringParam) e.getValue();
        StringBuilder b = new StringBuilder(head).append("string");
        s.allowed().ifPresent(values -> b.append(", one of ").append(values));
        s.pattern().ifPresent(p -> b.append(", matching ").append(p.pattern()));
        if (s.allowed().isEmpty() && s.pattern().isEmpty()) {
            b.append(", any text");
        }
        return b.append(", at most ").append(s.maxLength()).append(" characters").toString();
    }
}
