package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.policy.action.Action;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.model.TypedTool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Typed tools in the catalog: an operation whose config names a {@code tool} is listed under that name
 * with exactly its arguments as the input schema and annotations from its policy, after its kind's generic
 * tool (still listed); its arguments bind to the very action the generic tool binds the same operation
 * to, and arguments its schema refuses never bind.
 */
class TypedToolsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpTarget READER = new HttpTarget("reader", Origin.parseBaseUrl("https://api.example.com"), Set.of("GET", "HEAD"),
            List.of("/v1", "/files/"), Set.of("Accept"), Optional.empty(), Duration.ofSeconds(5), 1024, false)
            .withTool(new TypedTool("api__read"));
    private static final HttpTarget WRITER = new HttpTarget("writer", Origin.parseBaseUrl("https://api.example.com:8443"), Set.of("POST", "PUT"),
            List.of("/v1.0/items"), Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, false)
            .withTool(new TypedTool("api__write"));
    private static final HttpTarget PLAIN = new HttpTarget("plain", Origin.parseBaseUrl("https://other.example.com"), Set.of("GET"),
            List.of("/"), Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, false);
    private static final SshHost BOX = new SshHost("box", "10.0.0.5", 22, "deploy", new SshAuth.Key(new CredentialRef("key"), Optional.empty()),
            Optional.of(Path.of("/etc/ssh/known_hosts")), Optional.empty(), Duration.ofSeconds(10), 4096, List.of(
                    new SshCommandSpec("tail-log", List.of("tail", "-n", "{lines}", "{file}"), Map.of(
                            "lines", new ParamSpec.IntegerParam(1, 500),
                            "file", new ParamSpec.StringParam(Optional.of(Pattern.compile("app|web")), Optional.empty(), 16)),
                            true, Optional.of(new TypedTool("box__tail_log"))),
                    new SshCommandSpec("uptime", List.of("uptime"), Map.of())));
    private static final SqlDatabase SHOP = new SqlDatabase("shop", "db.internal", 5432, "shop", "agent", new CredentialRef("pw"),
            SqlDatabase.Tls.verifyFull(), false, Duration.ofSeconds(5), 100, 4096, List.of(
                    new SqlStatementSpec("order-by-id", "SELECT status FROM orders WHERE id = :id",
                            Map.of("id", new ParamSpec.IntegerParam(1, Long.MAX_VALUE)), true, false,
                            Optional.of(new TypedTool("shop__order_by_id"))),
                    new SqlStatementSpec("cancel-order", "UPDATE orders SET status = 'cancelled' WHERE id = :id AND :really",
                            Map.of("id", new ParamSpec.IntegerParam(1, Long.MAX_VALUE), "really", new ParamSpec.BooleanParam()),
                            false, true, Optional.of(new TypedTool("shop__cancel_order")))));

    private final ToolCatalog catalog = new ToolCatalog(TestKinds.ALL, Policy.of(READER, WRITER, PLAIN, BOX, SHOP));

    private Tool tool(String name) {
        return catalog.find(name).orElseThrow(() -> new AssertionError("no tool " + name + " in " + catalog.describeAll()));
    }

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    private Action bound(String tool, String arguments) throws Exception {
        Binding b = catalog.bind(tool(tool), json(arguments));
        return assertInstanceOf(Binding.ToAction.class, b, b::toString).action();
    }

    private Binding.Invalid refused(String tool, String arguments) throws Exception {
        Binding b = catalog.bind(tool(tool), json(arguments));
        return assertInstanceOf(Binding.Invalid.class, b, b::toString);
    }

    @Test
    void eachKindListsItsGenericToolThenOneToolPerOperationThatAsksInPolicyOrder() {
        assertEquals(List.of("http_request", "api__read", "api__write", "ssh_exec", "box__tail_log", "sql_query",
                "shop__order_by_id", "shop__cancel_order", "postern_targets"),
                catalog.tools().stream().map(Tool::name).toList());
    }

    @Test
    void aStatementToolsSchemaIsExactlyItsParamsAndItsAnnotationsFollowReadOnly() throws Exception {
        assertEquals(json("""
                {"type":"object","additionalProperties":false,"properties":{
                  "id":{"type":"integer","minimum":1,"maximum":9223372036854775807},
                  "really":{"type":"boolean"}},
                 "required":["id","really"]}"""), json(tool("shop__cancel_order").inputSchema().toString()));
        assertEquals(json("{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":false,\"openWorldHint\":true}"),
                tool("shop__cancel_order").annotations());
        assertEquals(json("{\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":true}"),
                tool("shop__order_by_id").annotations());
        assertEquals(tool("sql_query").outputSchema(), tool("shop__order_by_id").outputSchema());
        assertTrue(tool("shop__cancel_order").description().contains(ToolCatalog.WAITS_FOR_A_HUMAN.trim()),
                "a confirm statement says a human approves it");
        assertFalse(tool("shop__order_by_id").description().contains("human"));
    }

    @Test
    void aCommandToolsSchemaAnchorsPatternsAsThePolicyMatchesThemWhole() throws Exception {
        assertEquals(json("""
                {"type":"object","additionalProperties":false,"properties":{
                  "file":{"type":"string","maxLength":16,"pattern":"^(?:app|web)$"},
                  "lines":{"type":"integer","minimum":1,"maximum":500}},
                 "required":["file","lines"]}"""), json(tool("box__tail_log").inputSchema().toString()));
        assertEquals(tool("ssh_exec").annotations(), tool("box__tail_log").annotations(),
                "nothing in the policy says what a command does: annotated as ssh_exec is");
        assertEquals("/file", refused("box__tail_log", "{\"file\":\"xapp\",\"lines\":5}").pointer(),
                "a value the unanchored pattern would find inside is refused by the schema");
    }

    @Test
    void aTargetToolsSchemaOffersItsMethodsPrefixesAndHeadersOnly() throws Exception {
        assertEquals(json("""
                {"type":"object","additionalProperties":false,"properties":{
                  "method":{"type":"string","description":"HTTP method, one the target allows","enum":["GET","HEAD"]},
                  "path":{"type":"string","minLength":1,"maxLength":%d,"pattern":"^(?:/v1(?:/[^?#]*)?|/files/[^?#]*)$",
                          "description":"The path after https://api.example.com:443, under one of [/v1, /files/]; no query or fragment"},
                  "query":{"type":"object","maxProperties":64,"description":"Query parameters, encoded by Postern",
                           "additionalProperties":{"type":"string","maxLength":4096},"propertyNames":{"minLength":1,"maxLength":256}},
                  "headers":{"type":"object","additionalProperties":false,"description":"Request headers the target allows, by lower-case name",
                             "properties":{"accept":{"type":"string","maxLength":8192}}}},
                 "required":["method","path"]}""".formatted(ToolCatalog.MAX_URL - "https://api.example.com:443".length())),
                json(tool("api__read").inputSchema().toString()));
        assertEquals(json("{\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":true}"),
                tool("api__read").annotations());
        assertEquals(json("{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":false,\"openWorldHint\":true}"),
                tool("api__write").annotations(), "POST is neither safe nor idempotent");
        JsonNode write = tool("api__write").inputSchema().get("properties");
        assertEquals("^(?:/v1\\.0/items(?:/[^?#]*)?)$", write.get("path").get("pattern").textValue(), "a dot in a prefix is literal");
        assertTrue(write.has("body"), "a target that may write takes a body");
        assertFalse(write.has("headers"), "a target that allows no header offers none");
        assertFalse(tool("api__read").inputSchema().get("properties").has("body"), "a read-only target takes no body");
    }

    @Test
    void aTypedCallBindsToTheVeryActionTheGenericToolBindsForTheSameOperation() throws Exception {
        assertEquals(bound("sql_query", "{\"database\":\"shop\",\"statement\":\"cancel-order\",\"args\":{\"id\":7,\"really\":true}}"),
                bound("shop__cancel_order", "{\"id\":7,\"really\":true}"));
        assertEquals(bound("ssh_exec", "{\"host\":\"box\",\"command\":\"tail-log\",\"args\":{\"lines\":20,\"file\":\"app\"}}"),
                bound("box__tail_log", "{\"lines\":20,\"file\":\"app\"}"));
        assertEquals(bound("http_request", "{\"method\":\"GET\",\"url\":\"https://api.example.com:443/v1/items\","
                        + "\"query\":{\"q\":\"a b\"},\"headers\":{\"accept\":\"text/plain\"}}"),
                bound("api__read", "{\"method\":\"GET\",\"path\":\"/v1/items\",\"query\":{\"q\":\"a b\"},\"headers\":{\"accept\":\"text/plain\"}}"));
        assertEquals(bound("http_request", "{\"method\":\"PUT\",\"url\":\"https://api.example.com:8443/v1.0/items/3\",\"body\":\"{}\"}"),
                bound("api__write", "{\"method\":\"PUT\",\"path\":\"/v1.0/items/3\",\"body\":\"{}\"}"));
    }

    @Test
    void argumentsOutsideATypedToolsSchemaNeverBind() throws Exception {
        assertEquals("/id", refused("shop__cancel_order", "{\"id\":0,\"really\":true}").pointer());
        assertEquals("/really", refused("shop__cancel_order", "{\"id\":1}").pointer(), "every param is required");
        assertEquals("/database", refused("shop__order_by_id", "{\"id\":1,\"database\":\"crm\"}").pointer(), "nothing else is accepted");
        assertEquals("/method", refused("api__read", "{\"method\":\"DELETE\",\"path\":\"/v1\"}").pointer());
        assertEquals("/path", refused("api__read", "{\"method\":\"GET\",\"path\":\"/v10\"}").pointer(), "prefixes on segment boundaries");
        assertEquals("/path", refused("api__read", "{\"method\":\"GET\",\"path\":\"/v1?x=1\"}").pointer(), "no query in the path");
        assertEquals("/path", refused("api__write", "{\"method\":\"POST\",\"path\":\"/v1x0/items\"}").pointer());
        assertEquals("/url", refused("api__read", "{\"method\":\"GET\",\"url\":\"https://evil.example/\",\"path\":\"/v1\"}").pointer());
        assertEquals("/headers/x-other", refused("api__read", "{\"method\":\"GET\",\"path\":\"/v1\",\"headers\":{\"x-other\":\"1\"}}").pointer());
        assertEquals("/body", refused("api__read", "{\"method\":\"GET\",\"path\":\"/v1\",\"body\":\"x\"}").pointer());
    }

    @Test
    void posternTargetsAndCheckConfigNameEachTypedTool() {
        JsonNode targets = catalog.describePolicy(catalog.policy());
        assertEquals("api__read", targets.get("http").get(0).get("tool").textValue());
        assertFalse(targets.get("http").get(2).has("tool"), "a target that does not ask has no tool");
        assertEquals("box__tail_log", targets.get("ssh").get(0).get("commands").get(0).get("tool").textValue());
        assertFalse(targets.get("ssh").get(0).get("commands").get(1).has("tool"));
        assertEquals("shop__cancel_order", targets.get("sql").get(0).get("statements").get(1).get("tool").textValue());

        assertTrue(new HttpRequestKind().describeForOperator(catalog.policy()).contains("also as tool api__write\n"));
        assertTrue(new SshExecKind().describeForOperator(catalog.policy())
                .contains("command tail-log: [tail, -n, {lines}, {file}], only with a human's approval, also as tool box__tail_log\n"));
        assertTrue(new SqlQueryKind().describeForOperator(catalog.policy())
                .contains("statement cancel-order (read-write, only with a human's approval, also as tool shop__cancel_order): UPDATE"));
    }

    @Test
    void aPolicyWithoutTypedToolsListsExactlyWhatItListedBefore() {
        ToolCatalog plain = new ToolCatalog(TestKinds.ALL, Policy.of(PLAIN));
        assertEquals(List.of("http_request", "postern_targets"), plain.tools().stream().map(Tool::name).toList());
    }
}
