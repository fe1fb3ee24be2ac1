package dev.postern.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The config's defaults are written once, in {@link ConfigDefaults}: the schema's {@code default}
 * values and README's configuration table say the same, and the loader applies them.
 */
class ConfigDefaultsTest {
    private static final String SCHEMA = "/dev/postern/app/postern-config.schema.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Where README's table states each default: its row, the text that starts the property, the default's pointer. */
    private record ReadmeEntry(String row, String property, String pointer) {
    }

    private static final String CREDENTIAL_COMMAND = "/properties/credentials/additionalProperties/oneOf/2/properties/";
    private static final String HTTP_TARGET = "/properties/http/properties/targets/items/properties/";
    private static final String SSH_HOST = "/properties/ssh/properties/hosts/items/properties/";
    private static final String SQL_DATABASE = "/properties/sql/properties/databases/items/properties/";
    private static final String MCP_SERVER = "/properties/mcp/properties/servers/items/properties/";
    private static final String TELEMETRY = "/properties/telemetry/properties/";

    private static final List<ReadmeEntry> README = List.of(
            new ReadmeEntry("`session.maxFrameBytes`", "`session.maxFrameBytes`", "/properties/session/properties/maxFrameBytes"),
            new ReadmeEntry("`session.maxInFlight`", "`session.maxInFlight`", "/properties/session/properties/maxInFlight"),
            new ReadmeEntry("`session.approvalTimeoutSeconds`", "`session.approvalTimeoutSeconds`",
                    "/properties/session/properties/approvalTimeoutSeconds"),
            new ReadmeEntry("`session.approval`", "`session.approval`", "/properties/session/properties/approval"),
            new ReadmeEntry("`journal.rotateBytes`", "`journal.rotateBytes`", "/properties/journal/properties/rotateBytes"),
            new ReadmeEntry("`journal.redactArguments`", "`journal.redactArguments`", "/properties/journal/properties/redactArguments"),
            new ReadmeEntry("`credentials.NAME`", "`timeoutMs`", CREDENTIAL_COMMAND + "timeoutMs"),
            new ReadmeEntry("`credentials.NAME`", "`cacheSeconds`", CREDENTIAL_COMMAND + "cacheSeconds"),
            new ReadmeEntry("`http.targets[]`", "`timeoutMs`", HTTP_TARGET + "timeoutMs"),
            new ReadmeEntry("`http.targets[]`", "`maxResponseBytes`", HTTP_TARGET + "maxResponseBytes"),
            new ReadmeEntry("`http.targets[]`", "`onOversizeResponse`", HTTP_TARGET + "onOversizeResponse"),
            new ReadmeEntry("`http.targets[]`", "`allowPrivateAddresses`", HTTP_TARGET + "allowPrivateAddresses"),
            new ReadmeEntry("`http.targets[]`", "`trustStore`", HTTP_TARGET + "trustStore/properties/type"),
            new ReadmeEntry("`http.targets[]`", "`propagateTraceContext`", HTTP_TARGET + "propagateTraceContext"),
            new ReadmeEntry("`ssh.hosts[]`", "`port`", SSH_HOST + "port"),
            new ReadmeEntry("`ssh.hosts[]`", "`timeoutSeconds`", SSH_HOST + "timeoutSeconds"),
            new ReadmeEntry("`ssh.hosts[]`", "`maxOutputBytes`", SSH_HOST + "maxOutputBytes"),
            new ReadmeEntry("`ssh.hosts[].commands[]`", "maxLength?",
                    SSH_HOST + "commands/items/properties/params/additionalProperties/oneOf/0/properties/maxLength"),
            new ReadmeEntry("`ssh.hosts[].commands[]`", "`confirm`", SSH_HOST + "commands/items/properties/confirm"),
            new ReadmeEntry("`sql.databases[]`", "`port`", SQL_DATABASE + "port"),
            new ReadmeEntry("`sql.databases[]`", "`allowPrivateAddresses`", SQL_DATABASE + "allowPrivateAddresses"),
            new ReadmeEntry("`sql.databases[]`", "`timeoutMs`", SQL_DATABASE + "timeoutMs"),
            new ReadmeEntry("`sql.databases[]`", "`maxRows`", SQL_DATABASE + "maxRows"),
            new ReadmeEntry("`sql.databases[]`", "`maxResponseBytes`", SQL_DATABASE + "maxResponseBytes"),
            new ReadmeEntry("`sql.databases[].statements[]`", "`readOnly`", SQL_DATABASE + "statements/items/properties/readOnly"),
            new ReadmeEntry("`sql.databases[].statements[]`", "`confirm`", SQL_DATABASE + "statements/items/properties/confirm"),
            new ReadmeEntry("`sql.databases[].statements[]`", "maxLength?",
                    SQL_DATABASE + "statements/items/properties/params/additionalProperties/oneOf/0/properties/maxLength"),
            new ReadmeEntry("`mcp.servers[]`", "`startTimeoutMs`", MCP_SERVER + "startTimeoutMs"),
            new ReadmeEntry("`mcp.servers[]`", "`timeoutMs`", MCP_SERVER + "timeoutMs"),
            new ReadmeEntry("`mcp.servers[]`", "`maxResponseBytes`", MCP_SERVER + "maxResponseBytes"),
            new ReadmeEntry("`mcp.servers[].tools[]`", "`confirm`", MCP_SERVER + "tools/items/properties/confirm"),
            new ReadmeEntry("`telemetry`", "`serviceName`", TELEMETRY + "serviceName"),
            new ReadmeEntry("`telemetry`", "`signals`", TELEMETRY + "signals"),
            new ReadmeEntry("`telemetry`", "`timeoutMs`", TELEMETRY + "timeoutMs"),
            new ReadmeEntry("`telemetry`", "`maxQueue`", TELEMETRY + "maxQueue"));

    @Test
    void theSchemasDefaultsAreExactlyTheLoadersDefaults() throws IOException {
        Map<String, String> inSchema = new TreeMap<>();
        collectDefaults(schema(), "", inSchema);
        Map<String, String> inCode = new TreeMap<>();
        ConfigDefaults.BY_SCHEMA_POINTER.forEach((pointer, value) -> inCode.put(pointer, JSON.valueToTree(value).toString()));

        assertEquals(inCode, inSchema);
    }

    @Test
    void readmesConfigurationTableStatesEveryDefaultAsTheLoaderHasIt() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        assertEquals(ConfigDefaults.BY_SCHEMA_POINTER.keySet(), README.stream().map(ReadmeEntry::pointer)
                .collect(Collectors.toSet()), "every default has a README entry");
        for (ReadmeEntry entry : README) {
            String row = readme.lines().filter(l -> l.startsWith("| " + entry.row() + " |")).findFirst()
                    .orElseThrow(() -> new AssertionError("README has no table row " + entry.row()));
            int at = row.indexOf(entry.property());
            assertTrue(at >= 0, () -> "README's row " + entry.row() + " does not name " + entry.property());
            int word = row.indexOf("default", at);
            assertTrue(word >= 0, () -> "README states no default for " + entry.property());
            String stated = row.substring(word + "default".length()).replaceFirst("^[:\\s`]+", "");
            String expected = String.valueOf(ConfigDefaults.BY_SCHEMA_POINTER.get(entry.pointer()));
            assertTrue(stated.startsWith(expected) && !Character.isLetterOrDigit(charAfter(stated, expected.length())),
                    () -> "README says " + entry.property() + " defaults to \"" + stated.substring(0, Math.min(20, stated.length()))
                            + "...\", the loader to " + expected);
        }
    }

    private static char charAfter(String s, int index) {
        return index < s.length() ? s.charAt(index) : ' ';
    }

    private static JsonNode schema() throws IOException {
        try (InputStream in = ConfigDefaultsTest.class.getResourceAsStream(SCHEMA)) {
            return JSON.readTree(in);
        }
    }

    /** Every {@code default} under {@code node}, as JSON text, by the pointer of the object holding it. */
    private static void collectDefaults(JsonNode node, String pointer, Map<String, String> into) {
        if (node.isObject()) {
            if (node.has("default")) {
                into.put(pointer, node.get("default").toString());
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                collectDefaults(e.getValue(), pointer + '/' + e.getKey().replace("~", "~0").replace("/", "~1"), into);
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                collectDefaults(node.get(i), pointer + '/' + i, into);
            }
        }
    }
}
