package dev.postern.protocol.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.action.Argument;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.transport.Sha256;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What {@code ssh_exec} writes for each surface: check-config's host and command lines (address,
 * user and every param rule for the operator), postern_targets' commands (no address, user or
 * credential for the agent), explain's command line as the remote shell gets it, and the journal's
 * intent, denial and outcome fields with and without redacted arguments.
 */
class SshExecKindPresentationTest {
    private static final SshExecKind KIND = new SshExecKind();
    private static final String FINGERPRINT = "SHA256:" + "A".repeat(43);

    private static final SshCommandSpec LOGS = new SshCommandSpec("logs", List.of("journalctl", "-u", "{unit}", "-n", "{lines}"),
            Map.of("unit", new ParamSpec.StringParam(Optional.of(Pattern.compile("[a-z]+")), Optional.of(List.of("nginx", "app")), 32),
                    "lines", new ParamSpec.IntegerParam(1, 500)));
    private static final SshCommandSpec REBOOT = new SshCommandSpec("reboot", List.of("reboot"), Map.of(), true);
    private static final SshCommandSpec GREP = new SshCommandSpec("grep", List.of("grep", "{word}", "/var/log/app.log"),
            Map.of("word", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64)));
    private static final SshHost WEB = new SshHost("web", "10.0.0.5", 2222, "deploy",
            new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty()), Optional.empty(), Optional.of(FINGERPRINT),
            Duration.ofSeconds(5), 1024, List.of(LOGS, REBOOT, GREP), Optional.of(RateLimit.perSeconds(1, 1)));
    private static final SshHost V6 = new SshHost("v6", "fd00::5", 22, "ops", new SshAuth.Key(new CredentialRef("ops-key"), Optional.empty()),
            Optional.of(Path.of("/etc/postern/known_hosts")), Optional.empty(), Duration.ofMillis(90_000), 65536,
            List.of(new SshCommandSpec("uptime", List.of("uptime"), Map.of())));
    private static final Policy POLICY = Policy.of(List.of(), List.of(WEB, V6));

    private static ObjectNode row() {
        return JsonNodeFactory.instance.objectNode();
    }

    private static AuthorizedSshCommand logs(String unit, long lines) {
        return Permits.permit(POLICY, new SshCommandAction("web", "logs",
                Map.of("unit", new Argument.Text(unit), "lines", new Argument.Whole(lines))), AuthorizedSshCommand.class);
    }

    private static AuthorizedSshCommand grep(String word) {
        return Permits.permit(POLICY, new SshCommandAction("web", "grep", Map.of("word", new Argument.Text(word))),
                AuthorizedSshCommand.class);
    }

    @Test
    void theKindNamesItsToolTypesAndTargetsField() {
        assertEquals("ssh_exec", KIND.toolName());
        assertEquals("ssh", KIND.targetsField());
        assertEquals("SSH hosts", KIND.allowancesNoun());
        assertEquals("SSH hosts with their commands and argument rules", KIND.allowancesSummary());
        assertEquals(SshCommandAction.class, KIND.actionType());
        assertEquals(AuthorizedSshCommand.class, KIND.permitType());
        assertEquals(SshExitOutcome.class, KIND.outcomeType());
        assertEquals(SshHost.class, KIND.allowanceType());
    }

    @Test
    void checkConfigPrintsEachHostWithAnIpv6AddressBracketedThenEachCommandAndItsParamsSortedByName() {
        assertEquals("ssh host web: deploy@10.0.0.5:2222, rate limit 1 call per 1 s\n"
                + "  command logs: [journalctl, -u, {unit}, -n, {lines}]\n"
                + "    param {lines}: integer, 1..500\n"
                + "    param {unit}: string, one of [nginx, app], matching [a-z]+, at most 32 characters\n"
                + "  command reboot: [reboot], only with a human's approval\n"
                + "  command grep: [grep, {word}, /var/log/app.log]\n"
                + "    param {word}: string, any text, at most 64 characters\n"
                + "ssh host v6: ops@[fd00::5]:22\n"
                + "  command uptime: [uptime]\n",
                KIND.describeForOperator(POLICY));
    }

    @Test
    void posternTargetsShowsCommandsAndParamsButNoAddressUserOrCredential() {
        String agent = KIND.describeForAgent(POLICY).toString();
        assertEquals("[{\"name\":\"web\",\"rateLimit\":{\"calls\":1,\"perSeconds\":1},\"commands\":["
                + "{\"name\":\"logs\",\"argv\":[\"journalctl\",\"-u\",\"{unit}\",\"-n\",\"{lines}\"],\"confirm\":false,"
                + "\"params\":{\"lines\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":500},"
                + "\"unit\":{\"type\":\"string\",\"maxLength\":32,\"pattern\":\"[a-z]+\",\"enum\":[\"nginx\",\"app\"]}}},"
                + "{\"name\":\"reboot\",\"argv\":[\"reboot\"],\"confirm\":true,\"params\":{}},"
                + "{\"name\":\"grep\",\"argv\":[\"grep\",\"{word}\",\"/var/log/app.log\"],\"confirm\":false,"
                + "\"params\":{\"word\":{\"type\":\"string\",\"maxLength\":64}}}]},"
                + "{\"name\":\"v6\",\"commands\":[{\"name\":\"uptime\",\"argv\":[\"uptime\"],\"confirm\":false,\"params\":{}}]}]", agent);
        for (String hidden : List.of("10.0.0.5", "deploy", "fd00", "ops", "known_hosts", FINGERPRINT)) {
            assertFalse(agent.contains(hidden), hidden);
        }
    }

    @Test
    void explainShowsTheHostTheQuotedCommandLineAndTheLimits() {
        assertEquals("would run on web (deploy@10.0.0.5:2222): 'journalctl' '-u' 'nginx' '-n' '50'\n"
                + "  limits: timeout 5 s, at most 1024 bytes per output stream", KIND.explain(logs("nginx", 50)));
        assertEquals("would run on web (deploy@10.0.0.5:2222): 'grep' 'it'\\''s; rm -rf /' '/var/log/app.log'\n"
                + "  limits: timeout 5 s, at most 1024 bytes per output stream", KIND.explain(grep("it's; rm -rf /")),
                "an argument with a quote and shell syntax stays one quoted word");
    }

    @Test
    void explainBracketsAnIpv6Address() {
        AuthorizedSshCommand uptime = Permits.permit(POLICY, new SshCommandAction("v6", "uptime", Map.of()), AuthorizedSshCommand.class);
        assertEquals("would run on v6 (ops@[fd00::5]:22): 'uptime'\n"
                + "  limits: timeout 90 s, at most 65536 bytes per output stream", KIND.explain(uptime));
    }

    @Test
    void anIntentRowHoldsTargetCommandArgvAndTheQuotedCommandLine() {
        ObjectNode row = row();
        KIND.journalIntent(logs("nginx", 50), row, false);
        assertEquals("{\"target\":\"web\",\"command\":\"logs\",\"argv\":[\"journalctl\",\"-u\",\"nginx\",\"-n\",\"50\"],"
                + "\"preview\":\"'journalctl' '-u' 'nginx' '-n' '50'\"}", row.toString());
    }

    @Test
    void aRedactedIntentRowHoldsOnlyTheCommandNameAndTheDigestOfTheArgvJoinedByNul() {
        ObjectNode row = row();
        KIND.journalIntent(logs("nginx", 50), row, true);
        String digest = Sha256.of("journalctl\u0000-u\u0000nginx\u0000-n\u000050".getBytes(StandardCharsets.UTF_8));
        assertEquals("{\"target\":\"web\",\"command\":\"logs\",\"preview\":\"logs\",\"argumentsSha256\":\"" + digest + "\"}", row.toString());
        ObjectNode other = row();
        KIND.journalIntent(logs("app", 50), other, true);
        assertFalse(digest.equals(other.get("argumentsSha256").textValue()), "another argument, another digest");
    }

    @Test
    void aDenialRowShowsTheCommandAndItsArgumentsSortedByName() {
        Map<String, Argument> args = new LinkedHashMap<>();
        args.put("b", new Argument.Text("x y"));
        args.put("a", new Argument.Whole(-1));
        ObjectNode row = row();
        KIND.journalDenial(new SshCommandAction("db-1", "rm", args), row, false);
        assertEquals("{\"target\":\"db-1\",\"refused\":\"rm a=-1 b=x y\"}", row.toString());

        ObjectNode redacted = row();
        KIND.journalDenial(new SshCommandAction("db-1", "rm", args), redacted, true);
        assertEquals("{\"target\":\"db-1\",\"refused\":\"rm\",\"argumentsSha256\":\""
                + Sha256.of(" a=-1 b=x y".getBytes(StandardCharsets.UTF_8)) + "\"}", redacted.toString());

        ObjectNode bare = row();
        KIND.journalDenial(new SshCommandAction("web", "halt", Map.of()), bare, false);
        assertEquals("{\"target\":\"web\",\"refused\":\"halt\"}", bare.toString());
    }

    @Test
    void anOutcomeRowHoldsTheExitStatusOrTheSignalAndNeitherWhenThereIsNone() {
        ObjectNode exited = row();
        KIND.journalOutcome(new SshExitOutcome("web", OptionalInt.of(0), Optional.empty(), new byte[3], false, new byte[0], false,
                FINGERPRINT), exited);
        assertEquals("{\"exitStatus\":0}", exited.toString());

        ObjectNode killed = row();
        KIND.journalOutcome(new SshExitOutcome("web", OptionalInt.empty(), Optional.of("KILL"), new byte[0], false, new byte[0], false,
                FINGERPRINT), killed);
        assertEquals("{\"exitSignal\":\"KILL\"}", killed.toString());

        ObjectNode neither = row();
        KIND.journalOutcome(new SshExitOutcome("web", OptionalInt.empty(), Optional.empty(), new byte[0], true, new byte[0], true,
                FINGERPRINT), neither);
        assertEquals("{}", neither.toString());
    }

    @Test
    void outputThatIsNotUtf8IsBase64AndEachStreamKeepsItsOwnFlags() {
        ObjectNode out = KIND.render(new SshExitOutcome("web", OptionalInt.of(1), Optional.empty(), new byte[] {(byte) 0xff, 0}, true,
                "warn\n".getBytes(StandardCharsets.UTF_8), false, FINGERPRINT));
        assertEquals("{\"host\":\"web\",\"exitStatus\":1,\"exitSignal\":null,\"stdout\":\"/wA=\",\"stdoutEncoding\":\"base64\","
                + "\"stdoutTruncated\":true,\"stderr\":\"warn\\n\",\"stderrEncoding\":\"text\",\"stderrTruncated\":false,"
                + "\"hostKeyFingerprint\":\"" + FINGERPRINT + "\"}", out.toString());
    }

    /** The sentence after the list of commands: how output comes back. */
    private static final String OUTPUT = " Each stream comes back as text, or base64 (stdoutEncoding, stderrEncoding) when it is not UTF-8 or is too large for the result as text; up to 1500000 bytes each within the host's maxOutputBytes always comes back whole, more may be cut to fit (stdoutTruncated, stderrTruncated).";

    @Test
    void theToolListsHostsAndCommandsAndEachCommandsArgumentNames() {
        Tool tool = KIND.tool(POLICY);
        assertEquals("[\"web\",\"v6\"]", tool.inputSchema().at("/properties/host/enum").toString());
        assertEquals("[\"grep\",\"logs\",\"reboot\",\"uptime\"]", tool.inputSchema().at("/properties/command/enum").toString(),
                "every command once, sorted");
        assertEquals("Run one configured command on one configured host. Commands: web/logs args [lines, unit]; "
                + "web/reboot; web/grep args [word]; v6/uptime." + OUTPUT + ToolCatalog.WAITS_FOR_A_HUMAN,
                tool.describe().get("description").textValue(), "reboot asks for a human: said once, after one space");
        assertEquals("Run one configured command on one configured host. Commands: v6/uptime." + OUTPUT,
                KIND.tool(Policy.of(List.of(), List.of(V6))).describe().get("description").textValue(), "no command asks: no word of a human");
    }
}
