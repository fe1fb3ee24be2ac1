package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.Gateway;
import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What check-config says about a target's trust store and its oversize rule, and what it refuses to describe. */
class CheckConfigCommandTest {
    @TempDir
    Path dir;

    private String describe(String target) throws Exception {
        Files.write(dir.resolve("ca.p12"), new byte[] {1});
        Path file = dir.resolve("postern.json");
        Files.writeString(file, "{\"journal\":{\"directory\":\"j\"},\"credentials\":{\"ca-pass\":{\"env\":\"CA_PASS\"}},"
                + "\"http\":{\"targets\":[{\"name\":\"internal\",\"baseUrl\":\"https://internal.example\",\"methods\":[\"GET\"],"
                + "\"pathPrefixes\":[\"/\"],\"maxResponseBytes\":4096" + target + "}]}}");
        return CheckConfigCommand.describe(Gateway.configLoader().load(file));
    }

    @Test
    void aTargetsTrustStoreAndRefusalOfOversizeResponsesAreShown() throws Exception {
        String text = describe(",\"trustStore\":{\"file\":\"ca.p12\",\"password\":\"ca-pass\"},\"onOversizeResponse\":\"refuse\"");

        assertTrue(text.contains("trusting only the PKCS12 trust store " + dir.resolve("ca.p12") + " (opened with credential ca-pass)"),
                text);
        assertTrue(text.contains("responses over 4096 bytes refused"), text);
    }

    @Test
    void theApprovalChannelOfTheSessionAndOfEachRuleThatNamesItsOwnAreShown() throws Exception {
        String plain = describe("");
        assertTrue(plain.contains("\napproval: any (the first answer from the client's elicitation, the loopback approval page or"
                + " postern approvals)\n"), plain);
        String named = describe(",\"confirm\":{\"methods\":[\"GET\"],\"channel\":\"local\"}");
        assertTrue(named.contains("; rule http.target:internal: local\n"), named);
    }

    @Test
    void methodsThatNeedAHumansApprovalAreShown() throws Exception {
        Path file = dir.resolve("postern.json");
        Files.writeString(file, "{\"journal\":{\"directory\":\"j\"},\"session\":{\"approvalTimeoutSeconds\":45},"
                + "\"http\":{\"targets\":[{\"name\":\"api\",\"baseUrl\":\"https://api.example\",\"methods\":[\"GET\",\"POST\",\"DELETE\"],"
                + "\"confirm\":[\"POST\",\"DELETE\"],\"pathPrefixes\":[\"/\"]}]},"
                + "\"ssh\":{\"hosts\":[{\"name\":\"web\",\"address\":\"10.0.0.5\",\"user\":\"deploy\",\"password\":\"pw\","
                + "\"hostKeyFingerprint\":\"SHA256:" + "A".repeat(43) + "\",\"commands\":["
                + "{\"name\":\"uptime\",\"argv\":[\"uptime\"]},{\"name\":\"reboot\",\"argv\":[\"reboot\"],\"confirm\":true}]}]},"
                + "\"credentials\":{\"pw\":{\"env\":\"PW\"}}}");
        String text = CheckConfigCommand.describe(Gateway.configLoader().load(file));

        assertTrue(text.contains("approvalTimeoutSeconds 45"), text);
        assertTrue(text.contains("[DELETE, POST] only with a human's approval"), text);
        assertTrue(text.contains("command reboot: [reboot], only with a human's approval"), text);
        assertTrue(text.contains("command uptime: [uptime]\n"), text);
    }

    @Test
    void aDefaultTargetMentionsNeither() throws Exception {
        String text = describe("");

        assertFalse(text.contains("trust store"), text);
        assertFalse(text.contains("refused"), text);
        assertFalse(text.contains("human"), text);
    }

    @Test
    void aTargetListingAHeaderTheAgentCanNeverSetIsNotDescribedButRefusedAtItsPointer() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> describe(",\"headers\":[\"Accept\",\"Authorization\",\"Host\"]"));

        assertEquals("/http/targets/0/headers/1", e.pointer(), e.getMessage());
        assertTrue(e.getMessage().contains("Authorization is always set by Postern"), e.getMessage());
    }
}
