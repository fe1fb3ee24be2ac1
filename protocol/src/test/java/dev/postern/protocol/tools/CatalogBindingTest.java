package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.action.HttpRequestAction;
import dev.postern.policy.action.QueryParameter;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpAuth;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What postern_targets tells an agent about a policy (every field, sorted where the policy holds
 * a set, nothing secret), the catalog's tool list, and how http_request arguments bind: query
 * parameters and headers in the order given, and schema failures pointing at the missing member.
 */
class CatalogBindingTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Policy policy() {
        HttpTarget api = new HttpTarget("api", Origin.parseBaseUrl("https://api.example.com"), Set.of("POST", "GET", "DELETE"),
                List.of("/v2/", "/v1/"), Set.of("X-Trace", "Accept"),
                Optional.of(new HttpAuth(new CredentialRef("api-token"), HttpAuth.Scheme.BEARER, Optional.empty())),
                Duration.ofMillis(2500), 4096, false, Optional.empty(), HttpTarget.OversizeResponse.REFUSE);
        SshHost web = new SshHost("web", "10.0.0.5", 22, "deploy",
                new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty()), Optional.empty(),
                Optional.of("SHA256:" + "A".repeat(43)), Duration.ofSeconds(5), 1024,
                List.of(new SshCommandSpec("logs", List.of("journalctl", "-u", "{unit}", "-n", "{lines}"),
                        Map.of("unit", new ParamSpec.StringParam(Optional.of(Pattern.compile("[a-z]+")), Optional.of(List.of("nginx", "app")), 32),
                                "lines", new ParamSpec.IntegerParam(1, 500)))));
        return Policy.of(List.of(api), List.of(web));
    }

    private final ToolCatalog catalog = new ToolCatalog(TestKinds.ALL, policy());

    @Test
    void posternTargetsDescribesEveryFieldAnAgentMayKnowAndNoSecret() throws Exception {
        JsonNode expected = JSON.readTree("""
                {"http":[{"name":"api","baseUrl":"BASE","methods":["DELETE","GET","POST"],
                          "pathPrefixes":["/v2/","/v1/"],"headers":["accept","x-trace"],"authenticated":true,
                          "timeoutMs":2500,"maxResponseBytes":4096,"onOversizeResponse":"refuse","confirm":[]}],
                 "ssh":[{"name":"web","commands":[{"name":"logs","argv":["journalctl","-u","{unit}","-n","{lines}"],"confirm":false,
                          "params":{"lines":{"type":"integer","minimum":1,"maximum":500},
                                    "unit":{"type":"string","maxLength":32,"pattern":"[a-z]+","enum":["nginx","app"]}}}]}],
                 "sql":[]}
                """.replace("BASE", policy().allowances(HttpTarget.class).get(0).origin().toUrl()));
        // Every other kind's field is there too, empty: the policy allows nothing of it.
        for (EffectKind<?, ?, ?> kind : TestKinds.ALL.all()) {
            if (!expected.has(kind.targetsField())) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) expected).putArray(kind.targetsField());
            }
        }
        Binding.Answer answer = assertInstanceOf(Binding.Answer.class,
                catalog.bind(catalog.find("postern_targets").orElseThrow(), JSON.createObjectNode()));
        assertEquals(expected, JSON.readTree(answer.structuredContent().toString()));
    }

    @Test
    void theCatalogListsItsThreeToolsInOrder() {
        assertEquals(List.of("http_request", "ssh_exec", "postern_targets"), catalog.tools().stream().map(Tool::name).toList());
    }

    @Test
    void queryParametersAndHeadersBindInTheOrderGiven() throws Exception {
        JsonNode args = JSON.readTree("""
                {"method":"GET","url":"https://api.example.com/v1/x","query":{"b":"2","a":"1"},
                 "headers":{"X-Trace":"t","Accept":"text/plain"},"body":"hi"}""");
        HttpRequestAction a = assertInstanceOf(HttpRequestAction.class, assertInstanceOf(Binding.ToAction.class,
                catalog.bind(catalog.find("http_request").orElseThrow(), args)).action());
        assertEquals(List.of(new QueryParameter("b", "2"), new QueryParameter("a", "1")), a.query());
        assertEquals(List.of(new HeaderField("X-Trace", "t"), new HeaderField("Accept", "text/plain")), a.headers());
        assertEquals(Optional.of("hi"), a.body());
    }

    @Test
    void aMissingRequiredMemberIsPointedAtByName() throws Exception {
        Binding.Invalid invalid = assertInstanceOf(Binding.Invalid.class,
                catalog.bind(catalog.find("http_request").orElseThrow(), JSON.readTree("{\"method\":\"GET\"}")));
        assertEquals("/url", invalid.pointer());
    }

    @Test
    void aWrongTypeIsPointedAtWhereItSits() throws Exception {
        Binding.Invalid invalid = assertInstanceOf(Binding.Invalid.class,
                catalog.bind(catalog.find("http_request").orElseThrow(), JSON.readTree("{\"method\":\"GET\",\"url\":5}")));
        assertEquals("/url", invalid.pointer());
    }

    @Test
    void anSshArgumentBeyond64BitsIsRefusedWithAnEscapedPointer() throws Exception {
        JsonNode args = JSON.readTree("{\"host\":\"web\",\"command\":\"logs\",\"args\":{\"a/b~c\":99999999999999999999}}");
        Binding.Invalid invalid = assertInstanceOf(Binding.Invalid.class, catalog.bind(catalog.find("ssh_exec").orElseThrow(), args));
        assertEquals("/args/a~1b~0c", invalid.pointer());
        assertEquals("must be a string or an integer within 64 bits", invalid.message());
    }

    @Test
    void aHeaderOrQueryNameTheSchemaRefusesIsPointedAtItsObjectAndNamedInTheMessage() throws Exception {
        Binding.Invalid header = assertInstanceOf(Binding.Invalid.class, catalog.bind(catalog.find("http_request").orElseThrow(),
                JSON.readTree("{\"method\":\"GET\",\"url\":\"http://x\",\"headers\":{\"bad name\":\"x\"}}")));
        assertEquals("/headers", header.pointer());
        assertEquals("property 'bad name' name is not valid: does not match the regex pattern ^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$",
                header.message());
        Binding.Invalid query = assertInstanceOf(Binding.Invalid.class, catalog.bind(catalog.find("http_request").orElseThrow(),
                JSON.readTree("{\"method\":\"GET\",\"url\":\"http://x\",\"query\":{\"\":\"x\"}}")));
        assertEquals("/query", query.pointer());
    }
}
