package dev.postern.policy;

import static dev.postern.policy.TestPolicies.host;
import static dev.postern.policy.TestPolicies.permittedSsh;
import static dev.postern.policy.TestPolicies.ssh;
import static dev.postern.policy.TestPolicies.sshEngine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.postern.policy.action.Argument;
import dev.postern.policy.action.Argument.Text;
import dev.postern.policy.action.Argument.Whole;
import dev.postern.policy.action.SshCommandAction;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The SSH rules of DESIGN §4, proven through {@link PolicyEngine#decide}: lookup, argument checks, rendering. */
class SshRulesTest {
    private static final SshHost WEB = host("web-1",
            new SshCommandSpec("uptime", List.of("uptime"), Map.of()),
            new SshCommandSpec("tail-log", List.of("tail", "-n", "{lines}", "/var/log/app.log"),
                    Map.of("lines", new ParamSpec.IntegerParam(1, 500))),
            new SshCommandSpec("journal", List.of("journalctl", "--lines={n}", "--unit={unit}.service", "-p", "{level}"),
                    Map.of("n", new ParamSpec.IntegerParam(-5, 5),
                            "unit", new ParamSpec.StringParam(Optional.of(Pattern.compile("[a-z]+")), Optional.empty(), 8),
                            "level", new ParamSpec.StringParam(Optional.empty(), Optional.of(List.of("info", "warn")), 16))),
            new SshCommandSpec("echo", List.of("echo", "{s}", "{s}"),
                    Map.of("s", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 3))),
            new SshCommandSpec("pair", List.of("echo", "{a}{b}"),
                    Map.of("a", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64),
                            "b", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 64))));
    private static final PolicyEngine ENGINE = sshEngine(WEB, host("db-1"));

    static Stream<Arguments> permitted() {
        return Stream.of(
                arguments(ssh("web-1", "uptime", Map.of()), List.of("uptime"), "'uptime'"),
                arguments(ssh("web-1", "tail-log", Map.of("lines", new Whole(1))),
                        List.of("tail", "-n", "1", "/var/log/app.log"), "'tail' '-n' '1' '/var/log/app.log'"),
                arguments(ssh("web-1", "tail-log", Map.of("lines", new Whole(500))),
                        List.of("tail", "-n", "500", "/var/log/app.log"), "'tail' '-n' '500' '/var/log/app.log'"),
                arguments(ssh("web-1", "journal", Map.of("n", new Whole(-5), "unit", new Text("nginx"), "level", new Text("warn"))),
                        List.of("journalctl", "--lines=-5", "--unit=nginx.service", "-p", "warn"),
                        "'journalctl' '--lines=-5' '--unit=nginx.service' '-p' 'warn'"),
                arguments(ssh("web-1", "echo", Map.of("s", new Text("a'b"))),
                        List.of("echo", "a'b", "a'b"), "'echo' 'a'\\''b' 'a'\\''b'"),
                arguments(ssh("web-1", "echo", Map.of("s", new Text(""))), List.of("echo", "", ""), "'echo' '' ''"),
                arguments(ssh("web-1", "echo", Map.of("s", new Text("😀😀😀"))),
                        List.of("echo", "😀😀😀", "😀😀😀"), "'echo' '😀😀😀' '😀😀😀'"),
                arguments(ssh("web-1", "pair", Map.of("a", new Text("{b}$1\\"), "b", new Text("$(id)"))),
                        List.of("echo", "{b}$1\\$(id)"), "'echo' '{b}$1\\$(id)'"));
    }

    @ParameterizedTest
    @MethodSource("permitted")
    void configuredCommandRendersItsArgvAndCommandLine(SshCommandAction action, List<String> argv, String commandLine) {
        AuthorizedSshCommand permit = permittedSsh(ENGINE.decide(action));

        assertEquals(argv, permit.argv());
        assertEquals(commandLine, permit.commandLine());
        assertEquals("ssh.command:web-1." + action.command(), permit.rule());
        assertSame(WEB, permit.host());
        assertSame(action, permit.action());
    }

    static Stream<Arguments> denied() {
        return Stream.of(
                arguments("unknown host", ssh("web-2", "uptime", Map.of()), "ssh.host"),
                arguments("host name differs in case", ssh("WEB-1", "uptime", Map.of()), "ssh.host"),
                arguments("command of another host", ssh("db-1", "uptime", Map.of()), "ssh.command"),
                arguments("unknown command", ssh("web-1", "reboot", Map.of()), "ssh.command"),
                arguments("argument to a command without params", ssh("web-1", "uptime", Map.of("x", new Text("1"))), "ssh.args.unknown"),
                arguments("unknown argument beside a good one",
                        ssh("web-1", "tail-log", Map.of("lines", new Whole(3), "file", new Text("/etc/shadow"))), "ssh.args.unknown"),
                arguments("missing argument", ssh("web-1", "tail-log", Map.of()), "ssh.args.missing"),
                arguments("one of three missing", ssh("web-1", "journal", Map.of("n", new Whole(1), "unit", new Text("a"))), "ssh.args.missing"),
                arguments("integer below minimum", tail(new Whole(0)), "ssh.args.range"),
                arguments("integer above maximum", tail(new Whole(501)), "ssh.args.range"),
                arguments("integer far below", tail(new Whole(Long.MIN_VALUE)), "ssh.args.range"),
                arguments("integer far above", tail(new Whole(Long.MAX_VALUE)), "ssh.args.range"),
                arguments("text for an integer", tail(new Text("5")), "ssh.args.type"),
                arguments("integer for a text", journal(new Whole(1), new Whole(5), new Text("info")), "ssh.args.type"),
                arguments("decimal for an integer", tail(new Argument.Decimal(new java.math.BigDecimal("5.0"))), "ssh.args.type"),
                arguments("truth value for an integer", tail(new Argument.Bool(true)), "ssh.args.type"),
                arguments("truth value for a text", journal(new Whole(1), new Argument.Bool(false), new Text("info")), "ssh.args.type"),
                arguments("pattern matches only a part", journal(new Whole(1), new Text("ab;rm"), new Text("info")), "ssh.args.pattern"),
                arguments("pattern rejects upper case", journal(new Whole(1), new Text("Nginx"), new Text("info")), "ssh.args.pattern"),
                arguments("pattern rejects a trailing newline", journal(new Whole(1), new Text("nginx\n"), new Text("info")), "ssh.args.pattern"),
                arguments("pattern rejects empty", journal(new Whole(1), new Text(""), new Text("info")), "ssh.args.pattern"),
                arguments("string over maxLength", journal(new Whole(1), new Text("abcdefghi"), new Text("info")), "ssh.args.length"),
                arguments("value outside enum", journal(new Whole(1), new Text("nginx"), new Text("debug")), "ssh.args.enum"),
                arguments("enum is case-sensitive", journal(new Whole(1), new Text("nginx"), new Text("INFO")), "ssh.args.enum"),
                arguments("enum needs the whole value", journal(new Whole(1), new Text("nginx"), new Text("info ")), "ssh.args.enum"),
                arguments("four code points over maxLength 3", echo("😀😀😀😀"), "ssh.args.length"),
                arguments("NUL in a string", echo("a\0b"), "ssh.args.nul"),
                arguments("lone NUL", echo("\0"), "ssh.args.nul"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("denied")
    void badCallIsDeniedByItsRule(String why, SshCommandAction action, String rule) {
        Decision.Deny deny = TestPolicies.denied(ENGINE.decide(action));

        assertEquals(rule, deny.rule(), () -> why + ": " + deny.reason());
        assertFalse(deny.reason().isBlank());
    }

    static Stream<Arguments> hostileNames() {
        String hostile = "evil\0\r\n" + "x".repeat(100_000);
        return Stream.of(
                arguments(ssh(hostile, "uptime", Map.of()), "ssh.host"),
                arguments(ssh("web-1", hostile, Map.of()), "ssh.command"),
                arguments(ssh("web-1", "uptime", Map.of(hostile, new Text("v"))), "ssh.args.unknown"));
    }

    @ParameterizedTest
    @MethodSource("hostileNames")
    void denialReasonIsBoundedAndPrintableWhateverTheAgentSent(SshCommandAction action, String rule) {
        Decision.Deny deny = TestPolicies.denied(ENGINE.decide(action));

        assertEquals(rule, deny.rule());
        assertTrue(deny.reason().length() < 1000, () -> "reason of " + deny.reason().length() + " chars");
        assertTrue(deny.reason().chars().noneMatch(c -> c < 0x20), deny.reason());
    }

    private static SshCommandAction tail(Argument lines) {
        return ssh("web-1", "tail-log", Map.of("lines", lines));
    }

    private static SshCommandAction journal(Argument n, Argument unit, Argument level) {
        return ssh("web-1", "journal", Map.of("n", n, "unit", unit, "level", level));
    }

    private static SshCommandAction echo(String s) {
        return ssh("web-1", "echo", Map.of("s", new Text(s)));
    }
}
