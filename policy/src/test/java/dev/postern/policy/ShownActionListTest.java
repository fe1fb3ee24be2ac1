package dev.postern.policy;

import static dev.postern.policy.TestPolicies.host;
import static dev.postern.policy.TestPolicies.httpEngine;
import static dev.postern.policy.TestPolicies.ssh;
import static dev.postern.policy.TestPolicies.sshEngine;
import static dev.postern.policy.TestPolicies.target;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.postern.policy.action.Action;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SqlQueryAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.SshCommandSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link ShownAction}'s javadoc lists, per kind, the labels a human is shown: one held-back call of
 * every kind of action the kernel knows, decided by a real engine, must show exactly those labels,
 * and every kind must have its line.
 */
class ShownActionListTest {
    private static final Path SOURCE = Path.of("src/main/java/dev/postern/policy/ShownAction.java");
    private static final Pattern ITEM = Pattern.compile("^ \\* <li>\\{@code ([a-z_]+)}: (.*)</li>$", Pattern.MULTILINE);

    /** One call of each kind that its rules hold back for approval, with every optional part present. */
    private static Map<Class<? extends Action>, PendingApproval> examples() {
        Map<Class<? extends Action>, PendingApproval> out = new LinkedHashMap<>();
        PolicyEngine http = httpEngine(target("api", "https://api.example.com", Set.of("POST"), List.of("/v1/"),
                Set.of("content-type", "accept")).withConfirm(Set.of("POST")));
        out.put(HttpRequestAction.class, held(http.decide(new HttpRequestAction("POST", "https://api.example.com/v1/x", List.of(),
                List.of(new HeaderField("Content-Type", "text/plain"), new HeaderField("Accept", "*/*")), Optional.of("b")))));
        PolicyEngine sshEngine = sshEngine(host("web-1", new SshCommandSpec("restart", List.of("systemctl", "restart", "{unit}"),
                Map.of("unit", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 32)), true)));
        out.put(dev.postern.policy.action.SshCommandAction.class,
                held(sshEngine.decide(ssh("web-1", "restart", Map.of("unit", new Argument.Text("nginx"))))));
        SqlDatabase shop = new SqlDatabase("shop", "db.internal", 5432, "shop", "agent", new CredentialRef("pw"),
                SqlDatabase.Tls.verifyFull(), false, Duration.ofSeconds(5), 100, 1 << 20, List.of(
                        new SqlStatementSpec("cancel", "UPDATE orders SET status = :status WHERE id = :id",
                                Map.of("id", new ParamSpec.IntegerParam(1, 1000),
                                        "status", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 32)), false, true)));
        out.put(SqlQueryAction.class, held(new PolicyEngine(Policy.of(shop)).decide(new SqlQueryAction("shop", "cancel",
                Map.of("id", new Argument.Whole(7), "status", new Argument.Text("done"))))));
        out.put(dev.postern.policy.action.UpstreamCallAction.class, held(new PolicyEngine(Policy.of(UpstreamRulesTest.server(
                UpstreamRulesTest.tool(true, Map.of())))).decide(UpstreamRulesTest.call(UpstreamRulesTest.ARGS))));
        return out;
    }

    private static PendingApproval held(Decision d) {
        return assertInstanceOf(Decision.ApprovalRequired.class, d).pending();
    }

    @Test
    void everyKindOfActionHasAnExampleHere() {
        assertEquals(Set.copyOf(Arrays.asList(Action.class.getPermittedSubclasses())), examples().keySet(),
                "add a held-back example of the new kind here, and its line to ShownAction's javadoc");
    }

    @Test
    void theJavadocListsEveryKindWithExactlyTheLabelsItsRulesShowInOrder() throws IOException {
        Map<String, List<String>> shown = new TreeMap<>();
        for (PendingApproval p : examples().values()) {
            List<String> labels = new ArrayList<>();
            for (ShownAction.Field f : p.shown().fields()) {
                String label = f.label().replaceFirst("^(header|value) .*", "$1 NAME");
                if (labels.isEmpty() || !labels.get(labels.size() - 1).equals(label)) {
                    labels.add(label);
                }
            }
            shown.put(p.shown().kind(), labels);
        }
        Map<String, List<String>> documented = new TreeMap<>();
        Matcher m = ITEM.matcher(Files.readString(SOURCE, StandardCharsets.UTF_8));
        while (m.find()) {
            documented.put(m.group(1), Arrays.stream(m.group(2).replaceAll("\\s*\\([^)]*\\)", "").split(","))
                    .map(String::strip).collect(Collectors.toList()));
        }
        assertEquals(shown, documented);
    }
}
