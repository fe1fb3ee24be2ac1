package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.ExitStatus;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.FakeSshServer;
import dev.postern.fixtures.LocalPostgres;
import dev.postern.fixtures.ToolErrors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed tools through the real gateway wiring, against real servers on loopback (the fake HTTP service,
 * the in-process SSH server, a throwaway PostgreSQL): each is listed in both eras with its exact schema and
 * annotations; a call with valid arguments reaches the server exactly as the generic call of the same
 * operation does, with the same result and journal rows that differ only in the tool they name; arguments
 * its schema refuses reach nothing; a policy denial is the generic tool's; colliding names stop the load.
 */
class TypedToolsSessionTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n";
    /** The fields of a row that differ between any two rows: where it sits in the chain, when, which frame. */
    private static final List<String> PLACE = List.of("seq", "time", "prev", "hash", "frame", "session", "intent");

    @TempDir
    Path dir;

    private static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":"
                + arguments + "}}\n";
    }

    private Path config(String body) throws Exception {
        return Files.writeString(dir.resolve("postern.json"), "{ \"journal\": { \"directory\": \"journal\" },"
                // One call at a time, so that rows and effects come in the order the calls were sent.
                + " \"session\": { \"maxInFlight\": 1 }, " + body + " }");
    }

    private static Map<Integer, JsonNode> answers(CliRun run) throws Exception {
        assertEquals(ExitStatus.OK, run.exit, run.toString());
        Map<Integer, JsonNode> byId = new HashMap<>();
        for (String line : run.out().lines().toList()) {
            JsonNode m = JSON.readTree(line);
            byId.put(m.get("id").asInt(), m);
        }
        return byId;
    }

    private static JsonNode listed(Map<Integer, JsonNode> answers, String name) {
        for (JsonNode t : answers.get(2).get("result").get("tools")) {
            if (t.get("name").textValue().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("tools/list has no " + name + ": " + answers.get(2));
    }

    private List<JsonNode> rows(String file, String kind) throws Exception {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("journal").resolve(file))) {
            JsonNode row = JSON.readTree(line);
            if (kind == null || kind.equals(row.path("kind").asText(null))) {
                rows.add(row);
            }
        }
        return rows;
    }

    /** A row without its place in the chain and without the tool it names. */
    private static JsonNode withoutPlaceAndTool(JsonNode row) {
        ObjectNode copy = row.deepCopy();
        PLACE.forEach(copy::remove);
        copy.remove("tool");
        return copy;
    }

    private static JsonNode structured(JsonNode answer) {
        assertFalse(answer.get("result").get("isError").asBoolean(), answer::toString);
        return answer.get("result").get("structuredContent");
    }

    @Test
    void anHttpTargetsToolIsListedInBothErasAndSendsTheRequestTheGenericToolSends() throws Exception {
        try (FakeHttpService http = FakeHttpService.start()) {
            http.respond("/v1/item", 200, Map.of("Content-Type", "text/plain"), "item".getBytes(StandardCharsets.UTF_8));
            String base = http.baseUri().toString();
            Path config = config("""
                    "http": { "targets": [
                      { "name": "loopback", "baseUrl": "%s", "methods": ["GET"], "pathPrefixes": ["/v1"], "headers": ["Accept"],
                        "allowPrivateAddresses": true, "tool": "loopback__read" } ] }""".formatted(base));

            Map<Integer, JsonNode> a = answers(CliRun.withStdin(INIT + LIST
                    + call(3, "loopback__read", "{\"method\":\"GET\",\"path\":\"/v1/item\",\"query\":{\"q\":\"a b\"},\"headers\":{\"accept\":\"text/plain\"}}")
                    + call(4, "http_request", "{\"method\":\"GET\",\"url\":\"" + base + "/v1/item\",\"query\":{\"q\":\"a b\"},\"headers\":{\"accept\":\"text/plain\"}}")
                    + call(5, "loopback__read", "{\"method\":\"GET\",\"path\":\"/admin\"}")
                    + call(6, "loopback__read", "{\"method\":\"POST\",\"path\":\"/v1/item\"}")
                    + call(7, "loopback__read", "{\"method\":\"GET\",\"path\":\"/v1/item\",\"url\":\"" + base + "/v1/item\"}")
                    + call(8, "loopback__read", "{\"method\":\"GET\",\"path\":\"/v1/item\",\"headers\":{\"x-marker\":\"1\"}}")
                    + call(9, "loopback__read", "{\"method\":\"GET\",\"path\":\"/v1/../admin\"}")
                    + call(10, "http_request", "{\"method\":\"GET\",\"url\":\"" + base + "/v1/../admin\"}"),
                    "mcp-stdio", "--config", config.toString()));

            JsonNode tool = listed(a, "loopback__read");
            listed(a, "http_request");
            String origin = tool.get("inputSchema").get("properties").get("path").get("description").textValue()
                    .replaceFirst("^The path after (\\S+), .*$", "$1");
            assertEquals(JSON.readTree("""
                    {"type":"object","additionalProperties":false,"properties":{
                      "method":{"type":"string","description":"HTTP method, one the target allows","enum":["GET"]},
                      "path":{"type":"string","minLength":1,"maxLength":%d,"pattern":"^(?:/v1(?:/[^?#]*)?)$",
                              "description":"The path after %s, under one of [/v1]; no query or fragment"},
                      "query":{"type":"object","maxProperties":64,"description":"Query parameters, encoded by Postern",
                               "additionalProperties":{"type":"string","maxLength":4096},"propertyNames":{"minLength":1,"maxLength":256}},
                      "headers":{"type":"object","additionalProperties":false,"description":"Request headers the target allows, by lower-case name",
                                 "properties":{"accept":{"type":"string","maxLength":8192}}}},
                     "required":["method","path"]}""".formatted(8192 - origin.length(), origin)), tool.get("inputSchema"));
            assertEquals(JSON.readTree("{\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":true}"),
                    tool.get("annotations"));
            assertEquals(listed(a, "http_request").get("outputSchema"), tool.get("outputSchema"));

            List<FakeHttpService.RecordedRequest> sent = http.requests();
            assertEquals(2, sent.size(), "only the two valid allowed calls reach the service: " + sent);
            assertEquals(sent.get(1).method() + " " + sent.get(1).path() + " " + sent.get(1).header("accept"),
                    sent.get(0).method() + " " + sent.get(0).path() + " " + sent.get(0).header("accept"));
            assertEquals("GET /v1/item?q=a%20b Optional[text/plain]",
                    sent.get(0).method() + " " + sent.get(0).path() + " " + sent.get(0).header("accept"));
            assertEquals(structured(a.get(4)), structured(a.get(3)), "the same result as the generic call");

            for (int id : List.of(5, 6, 7, 8)) {
                assertEquals("INVALID_ARGUMENTS", ToolErrors.error(a.get(id).get("result")).get("code").textValue(), a.get(id)::toString);
            }
            assertEquals("http.url.path", ToolErrors.error(a.get(9).get("result")).get("rule").textValue(),
                    "a path the schema lets through is still decided by the policy");
            assertEquals(ToolErrors.error(a.get(10).get("result")), ToolErrors.error(a.get(9).get("result")),
                    "the same denial as the generic call");

            List<JsonNode> intents = rows("actions.jsonl", "intent");
            assertEquals(List.of("loopback__read", "http_request"), intents.stream().map(r -> r.get("tool").textValue()).toList());
            assertEquals(List.of("http_request", "http_request"), intents.stream().map(r -> r.get("action").textValue()).toList());
            assertEquals(withoutPlaceAndTool(intents.get(1)), withoutPlaceAndTool(intents.get(0)), "the same intent row but for its tool");
            List<JsonNode> outcomes = rows("actions.jsonl", "outcome");
            assertEquals(withoutPlaceAndTool(outcomes.get(1)), withoutPlaceAndTool(outcomes.get(0)));

            List<JsonNode> decisions = rows("decisions.jsonl", null);
            assertEquals(List.of("schema", "schema", "schema", "schema", "policy", "policy"),
                    decisions.stream().map(r -> r.get("stage").textValue()).toList());
            assertEquals(List.of("loopback__read", "loopback__read", "loopback__read", "loopback__read", "loopback__read", "http_request"),
                    decisions.stream().map(r -> r.get("tool").textValue()).toList());
            assertEquals(withoutPlaceAndTool(decisions.get(5)), withoutPlaceAndTool(decisions.get(4)),
                    "the same denial row but for its tool");
            assertFalse(Files.readString(dir.resolve("journal/decisions.jsonl")).contains("x-marker"), "never an argument's value");
            CliRun show = CliRun.of("audit", "show", dir.resolve("journal").toString(), "--tool", "loopback__read");
            assertEquals(ExitStatus.OK, show.exit, show.toString());
            List<String> shown = show.out().lines().skip(1).toList(); // the header, then one line per event
            assertEquals(6, shown.size(), "audit show finds the typed call and its five refusals by the tool's name, and no"
                    + " generic call:\n" + show.out());
            assertTrue(shown.stream().allMatch(l -> l.contains("loopback__r")), show.out()); // the column cuts long names

            String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
            Map<Integer, JsonNode> stateless = answers(CliRun.withStdin(
                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" + meta + "}}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"loopback__read\","
                    + "\"arguments\":{\"method\":\"GET\",\"path\":\"/v1/item\"}," + meta + "}}\n",
                    "mcp-stdio", "--config", config.toString()));
            assertEquals(tool, listed(stateless, "loopback__read"), "the stateless era lists the same tool");
            assertEquals("item", structured(stateless.get(3)).get("body").textValue());
            assertEquals(3, http.requestCount());
        }
    }

    @Test
    void anSshCommandsToolRunsTheCommandLineTheGenericToolRuns() throws Exception {
        try (FakeSshServer ssh = FakeSshServer.start()) {
            Path key = ssh.generateClientKey(dir).privateKeyFile();
            Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
            Path knownHosts = ssh.writeKnownHosts(dir.resolve("known_hosts"));
            Path config = config("""
                    "credentials": { "deploy-key": { "file": "%s" } },
                    "ssh": { "hosts": [
                      { "name": "box", "address": "127.0.0.1", "port": %d, "user": "deploy", "identity": "deploy-key",
                        "knownHosts": "%s", "timeoutSeconds": 10,
                        "commands": [
                          { "name": "greet", "argv": ["echo", "{name}", "{times}"], "tool": "box__greet",
                            "params": { "name": { "type": "string", "pattern": "[a-z]+", "maxLength": 16 },
                                        "times": { "type": "integer", "minimum": 1, "maximum": 3 } } } ] } ] }"""
                    .formatted(key, ssh.port(), knownHosts));

            Map<Integer, JsonNode> a = answers(CliRun.withStdin(INIT + LIST
                    + call(3, "box__greet", "{\"name\":\"alice\",\"times\":2}")
                    + call(4, "ssh_exec", "{\"host\":\"box\",\"command\":\"greet\",\"args\":{\"name\":\"alice\",\"times\":2}}")
                    + call(5, "box__greet", "{\"name\":\"alice; reboot\",\"times\":2}")
                    + call(6, "box__greet", "{\"name\":\"alice\",\"times\":4}")
                    + call(7, "box__greet", "{\"name\":\"alice\"}")
                    + call(8, "box__greet", "{\"name\":\"alice\",\"times\":1,\"host\":\"other\"}"),
                    "mcp-stdio", "--config", config.toString()));

            JsonNode tool = listed(a, "box__greet");
            assertEquals(JSON.readTree("""
                    {"type":"object","additionalProperties":false,"properties":{
                      "name":{"type":"string","maxLength":16,"pattern":"^(?:[a-z]+)$"},
                      "times":{"type":"integer","minimum":1,"maximum":3}},
                     "required":["name","times"]}"""), tool.get("inputSchema"));
            assertEquals(listed(a, "ssh_exec").get("annotations"), tool.get("annotations"));
            List<String> ran = ssh.commands();
            assertEquals(2, ran.size(), "only the valid calls ran: " + ran);
            assertEquals(ran.get(1), ran.get(0), "the same command line as the generic call");
            assertTrue(ran.get(0).contains("postern-stop ''\\''echo'\\'' '\\''alice'\\'' '\\''2'\\''"), ran.get(0));
            assertEquals(structured(a.get(4)), structured(a.get(3)));
            for (int id : List.of(5, 6, 7, 8)) {
                assertEquals("INVALID_ARGUMENTS", ToolErrors.error(a.get(id).get("result")).get("code").textValue(), a.get(id)::toString);
            }
            List<JsonNode> intents = rows("actions.jsonl", "intent");
            assertEquals(List.of("box__greet", "ssh_exec"), intents.stream().map(r -> r.get("tool").textValue()).toList());
            assertEquals(withoutPlaceAndTool(intents.get(1)), withoutPlaceAndTool(intents.get(0)));
        }
    }

    @Test
    void aStatementsToolRunsTheStatementTheGenericToolRunsOnARealDatabase() throws Exception {
        try (LocalPostgres pg = LocalPostgres.start()) {
            pg.psql("postgres", "CREATE DATABASE shop");
            pg.psql("shop", "CREATE ROLE typed_agent LOGIN PASSWORD 'typed-pw-8d2f';"
                    + " CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL);"
                    + " INSERT INTO orders VALUES (1, 'open'), (2, 'open');"
                    + " GRANT SELECT, UPDATE ON orders TO typed_agent");
            Path password = Files.writeString(dir.resolve("db-password"), "typed-pw-8d2f");
            Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
            Path config = config("""
                    "credentials": { "shop-db": { "file": "%s" } },
                    "sql": { "databases": [
                      { "name": "shop", "host": "127.0.0.1", "port": %d, "database": "shop", "user": "typed_agent", "password": "shop-db",
                        "tls": { "mode": "disable" }, "allowPrivateAddresses": true,
                        "statements": [
                          { "name": "order-by-id", "tool": "shop__order_by_id", "sql": "SELECT id, status FROM orders WHERE id = :id",
                            "params": { "id": { "type": "integer", "minimum": 1 } } },
                          { "name": "close-order", "tool": "shop__close_order", "readOnly": false,
                            "sql": "UPDATE orders SET status = 'closed' WHERE id = :id AND :really",
                            "params": { "id": { "type": "integer", "minimum": 1, "maximum": 2 }, "really": { "type": "boolean" } } } ] } ] }"""
                    .formatted(password, pg.port()));
            long before = pg.connectionsOf("typed_agent");

            Map<Integer, JsonNode> a = answers(CliRun.withStdin(INIT + LIST
                    + call(3, "shop__order_by_id", "{\"id\":0}")
                    + call(4, "shop__close_order", "{\"id\":1,\"really\":\"yes\"}")
                    + call(5, "shop__order_by_id", "{\"id\":\"1 OR 1=1\"}"),
                    "mcp-stdio", "--config", config.toString()));
            for (int id : List.of(3, 4, 5)) {
                assertEquals("INVALID_ARGUMENTS", ToolErrors.error(a.get(id).get("result")).get("code").textValue(), a.get(id)::toString);
            }
            assertEquals(before, pg.connectionsOf("typed_agent"), "arguments the schema refuses open no connection");
            JsonNode read = listed(a, "shop__order_by_id");
            assertEquals(JSON.readTree("""
                    {"type":"object","additionalProperties":false,"properties":{
                      "id":{"type":"integer","minimum":1,"maximum":9223372036854775807}},"required":["id"]}"""), read.get("inputSchema"));
            assertEquals(JSON.readTree("{\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,\"openWorldHint\":true}"),
                    read.get("annotations"));
            assertEquals(JSON.readTree("{\"readOnlyHint\":false,\"destructiveHint\":true,\"idempotentHint\":false,\"openWorldHint\":true}"),
                    listed(a, "shop__close_order").get("annotations"));

            Map<Integer, JsonNode> ran = answers(CliRun.withStdin(INIT
                    + call(3, "shop__order_by_id", "{\"id\":1}")
                    + call(4, "sql_query", "{\"database\":\"shop\",\"statement\":\"order-by-id\",\"args\":{\"id\":1}}"),
                    "mcp-stdio", "--config", config.toString()));
            assertEquals(structured(ran.get(4)), structured(ran.get(3)));
            assertEquals("[[1,\"open\"]]", structured(ran.get(3)).get("rows").toString());
            Map<Integer, JsonNode> wrote = answers(CliRun.withStdin(INIT
                    + call(3, "shop__close_order", "{\"id\":1,\"really\":true}")
                    + call(4, "shop__order_by_id", "{\"id\":1}"),
                    "mcp-stdio", "--config", config.toString()));
            assertEquals("[[1,\"closed\"]]", structured(wrote.get(4)).get("rows").toString(), "the typed write reached the database");

            List<JsonNode> intents = rows("actions.jsonl", "intent");
            assertEquals(List.of("shop__order_by_id", "sql_query", "shop__close_order", "shop__order_by_id"),
                    intents.stream().map(r -> r.get("tool").textValue()).toList());
            assertEquals(withoutPlaceAndTool(intents.get(1)), withoutPlaceAndTool(intents.get(0)));
            assertTrue(pg.logText().contains("UPDATE orders SET status = 'closed' WHERE id = $1 AND $2"), "bound, never spliced");
        }
    }

    @Test
    void aToolNameOfferedTwiceIsALoadErrorNamingBoth() throws Exception {
        Path config = config("""
                "http": { "targets": [ { "name": "api", "baseUrl": "http://127.0.0.1:9", "methods": ["GET"], "pathPrefixes": ["/"],
                    "tool": "shop__search" } ] },
                "mcp": { "servers": [ { "name": "shop", "command": ["/bin/true"],
                    "tools": [ { "name": "search", "pin": "sha256:%s" } ] } ] }""".formatted("0".repeat(64)));
        CliRun check = CliRun.of("check-config", "--config", config.toString());
        assertEquals(ExitStatus.CONFIG_ERROR, check.exit, check.toString());
        assertTrue(check.err().contains("tool shop__search is offered twice: by http target api and by upstream MCP server shop, tool search"),
                check.err());

        Path misnamed = config("""
                "http": { "targets": [ { "name": "api", "baseUrl": "http://127.0.0.1:9", "methods": ["GET"], "pathPrefixes": ["/"],
                    "tool": "search" } ] }""");
        CliRun bad = CliRun.of("check-config", "--config", misnamed.toString());
        assertEquals(ExitStatus.CONFIG_ERROR, bad.exit, bad.toString());
        assertTrue(bad.err().contains("/http/targets/0/tool"), bad.err());
    }

    @Test
    void checkConfigAndExplainShowATypedToolAsTheOperationItStandsFor() throws Exception {
        Path config = config("""
                "http": { "targets": [ { "name": "api", "baseUrl": "http://127.0.0.1:9", "methods": ["GET"], "pathPrefixes": ["/v1"],
                    "allowPrivateAddresses": true, "tool": "api__read" } ] }""");
        CliRun check = CliRun.of("check-config", "--config", config.toString());
        assertEquals(ExitStatus.OK, check.exit, check.toString());
        assertTrue(check.out().lines().anyMatch(l -> l.startsWith("http target api:") && l.endsWith(", also as tool api__read")), check.out());

        CliRun typed = CliRun.of("explain", "--config", config.toString(), "--tool", "api__read",
                "--arguments", "{\"method\":\"GET\",\"path\":\"/v1/x\"}");
        CliRun generic = CliRun.of("explain", "--config", config.toString(), "--tool", "http_request",
                "--arguments", "{\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/v1/x\"}");
        assertEquals(ExitStatus.OK, typed.exit, typed.toString());
        assertEquals(generic.out(), typed.out(), "the same decision and the same words");
        CliRun refused = CliRun.of("explain", "--config", config.toString(), "--tool", "api__read",
                "--arguments", "{\"method\":\"GET\",\"path\":\"/v2/x\"}");
        assertTrue(refused.out().contains("/path"), refused.toString());
    }
}
