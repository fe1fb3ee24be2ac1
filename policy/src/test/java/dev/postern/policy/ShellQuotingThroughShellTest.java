package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.action.Argument;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.SshCommandSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * The quoting of {@link AuthorizedSshCommand#commandLine()} proven against a real {@code /bin/sh}:
 * {@code printf %s <quoted>} must print back exactly the argument's UTF-8 bytes. Spawns one shell per try.
 */
class ShellQuotingThroughShellTest {
    private static final PolicyEngine ENGINE = new PolicyEngine(Policy.of(List.of(), List.of(
            TestPolicies.host("local", new SshCommandSpec("print", List.of("printf", "%s", "{s}"),
                    Map.of("s", new ParamSpec.StringParam(Optional.empty(), Optional.empty(), 65536)))))));

    @Property(tries = 200)
    void shellPrintsBackExactlyTheArgument(@ForAll("shellHostileStrings") String s) throws Exception {
        AuthorizedSshCommand permit = TestPolicies.permittedSsh(
                ENGINE.decide(TestPolicies.ssh("local", "print", Map.of("s", new Argument.Text(s)))));

        assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), runShell(permit.commandLine()),
                () -> "command line: " + permit.commandLine());
    }

    @Example
    void shellPrintsBackAStringOfEverySpecialCharacter() throws Exception {
        String s = " ;|&$()'\"\\`\n\t*?[]{}~#!<>=%^,\r -- $HOME $(id) `id` ${x:-y} '' \"\" \\' é 😀 \u200b";

        shellPrintsBackExactlyTheArgument(s);
    }

    @Example
    void quotingIsSingleQuotesWithEscapedSingleQuotes() {
        assertEquals("'printf' '%s' ''\\'''", ShellQuoting.commandLine(List.of("printf", "%s", "'")));
        assertEquals("''", ShellQuoting.quote(""));
    }

    @Example
    void quotingRefusesNul() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ShellQuoting.quote("a\0b"));
        assertTrue(e.getMessage().contains("NUL"), e.getMessage());
    }

    @Provide
    Arbitrary<String> shellHostileStrings() {
        Arbitrary<String> special = Arbitraries.of(" ", ";", "|", "&", "$", "(", ")", "'", "\"", "\\", "`", "\n",
                "\t", "\r", "*", "?", "[", "]", "{", "}", "~", "#", "!", "<", ">", "=", "%", "-", "'\\''", "$(id)");
        Arbitrary<String> ascii = Arbitraries.integers().between(1, 0x7f).map(Character::toString);
        Arbitrary<String> unicode = Arbitraries.integers().between(0x80, Character.MAX_CODE_POINT)
                .filter(c -> c < Character.MIN_SURROGATE || c > Character.MAX_SURROGATE)
                .map(Character::toString);
        Arbitrary<String> piece = Arbitraries.frequencyOf(
                Tuple.of(4, special), Tuple.of(3, ascii), Tuple.of(2, unicode));
        return piece.list().ofMaxSize(40).map(parts -> parts.stream().collect(Collectors.joining()));
    }

    /**
     * Runs the command line as {@code sh -c}, as sshd does. When the JVM does not pass process
     * arguments as UTF-8 (a C locale), the line goes through the shell's stdin instead, which
     * parses it the same way.
     */
    private static byte[] runShell(String commandLine) throws IOException, InterruptedException {
        boolean utf8Args = "UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding"));
        ProcessBuilder builder = utf8Args
                ? new ProcessBuilder("/bin/sh", "-c", commandLine)
                : new ProcessBuilder("/bin/sh", "-s");
        Process process = builder.start();
        try (OutputStream stdin = process.getOutputStream()) {
            if (!utf8Args) {
                stdin.write((commandLine + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        CompletableFuture<byte[]> stderr = CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()));
        byte[] stdout = readAll(process.getInputStream());
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the shell did not exit");
        String errors = new String(stderr.join(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), () -> "shell failed: " + errors);
        assertEquals("", errors);
        return stdout;
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
