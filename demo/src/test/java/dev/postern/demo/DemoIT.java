package dev.postern.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.GatewayProcess;
import dev.postern.fixtures.LocalPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code bin/postern demo}, piped: its transcript ends with the executor counts the
 * design promises (allowed calls once each, nothing else) and carries no ANSI escape.
 */
class DemoIT {
    @TempDir
    Path dir;

    @Test
    void pipedDemoEndsWithOneCallPerExecutorAndPrintsNoAnsiEscapes() throws Exception {
        byte[] stdout;
        String context;
        Optional<Integer> exit;
        try (GatewayProcess p = GatewayProcess.start(GatewayProcess.launcherCommand(List.of("demo")), dir, Map.of(),
                ProcessBuilder.Redirect.PIPE)) {
            p.closeStdin();
            CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(p.stderr()));
            stdout = p.stdout().readAllBytes();
            exit = p.awaitExit(Duration.ofSeconds(90));
            context = "command: " + String.join(" ", p.command()) + "\nexit: " + exit.map(String::valueOf).orElse("(still running)")
                    + "\nstderr:\n" + new String(err.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        }
        String transcript = new String(stdout, StandardCharsets.UTF_8);
        context += "\nstdout:\n" + transcript;

        assertEquals(Optional.of(0), exit, context);
        for (byte b : stdout) {
            assertTrue(b != 0x1b, "piped output must carry no ANSI escape\n" + context);
        }
        List<String> lines = transcript.lines().filter(l -> !l.isBlank()).toList();
        List<String> last = lines.subList(lines.size() - 3, lines.size());
        assertEquals(List.of(
                "calls received by the HTTP service: 1 (expected 1)",
                "calls received by the SSH server: 2 (expected 2)",
                "demo: everything happened as expected"), last, context);
        assertTrue(transcript.contains("DENIED by rule http.path"), context);
        assertTrue(transcript.contains("DENIED by rule ssh.args.pattern"), context);
        assertTrue(transcript.contains("REJECTED by the tool's input schema at /followRedirects"), context);
        assertTrue(transcript.contains("gateway exited with status 2"), context);
        assertTrue(transcript.contains("APPROVED by a human, then ALLOWED by rule ssh.command:web-1.restart"), context);
        assertTrue(transcript.contains("DECLINED by the human: rule approval.declined"), context);
        assertTrue(transcript.contains("| command line: 'systemctl' 'restart' 'nginx'"), context);
        assertFalse(transcript.contains("UNEXPECTED"), context);
        if (LocalPostgres.installed()) {
            assertTrue(transcript.contains("ALLOWED by rule sql.statement:shop.orders-by-status"), context);
            assertTrue(transcript.contains("2 rows from database shop"), context);
            assertTrue(transcript.contains("DENIED by rule sql.args.enum"), context);
            assertTrue(transcript.contains("connections PostgreSQL accepted from demo_reader: 1 (expected 1)"), context);
        } else {
            assertTrue(transcript.contains(Demo.HOW_TO_ENABLE_SQL), context);
        }
        if (Demo.findReferenceServer().isPresent()) {
            assertTrue(transcript.contains("ALLOWED by rule mcp.tool:everything.echo"), context);
            assertTrue(transcript.contains("the upstream answered: Echo: hello from the demo"), context);
            assertTrue(transcript.contains("REJECTED by the tool's input schema at /message"), context);
            assertTrue(transcript.contains("calls journaled for the upstream's everything__echo (intent rows): 1 (expected 1"), context);
            assertTrue(java.util.regex.Pattern.compile("its echo pinned at sha256:[0-9a-f]{64} \\(taken just now from its live listing")
                    .matcher(transcript).find(), context);
        } else {
            assertTrue(transcript.contains(Demo.HOW_TO_ENABLE_UPSTREAM), context);
        }
    }

    @Test
    void withoutNodeTheDemoSaysHowToEnableTheUpstreamPartAndStillPasses() throws Exception {
        java.io.ByteArrayOutputStream report = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream diagnostics = new java.io.ByteArrayOutputStream();

        dev.postern.app.ExitStatus status = Demo.run(Optional.empty(), new java.io.PrintStream(report, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(diagnostics, true, StandardCharsets.UTF_8), false, dir.resolve("no-postgresql-here"),
                () -> ReferenceServer.find(dir.resolve("no-node-here"), List.of()));

        String transcript = report.toString(StandardCharsets.UTF_8);
        String context = transcript + "\nstderr:\n" + diagnostics.toString(StandardCharsets.UTF_8);
        assertEquals(dev.postern.app.ExitStatus.OK, status, context);
        assertEquals(2, transcript.lines().filter(Demo.HOW_TO_ENABLE_UPSTREAM::equals).count(),
                "said once at the start and once beside the counts\n" + context);
        assertFalse(transcript.contains("everything__echo"), "no upstream step without Node\n" + context);
        assertTrue(transcript.contains("demo: everything happened as expected"), context);
    }

    @Test
    void withoutPostgresTheDemoSaysHowToEnableSqlAndStillPasses() throws Exception {
        java.io.ByteArrayOutputStream report = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream diagnostics = new java.io.ByteArrayOutputStream();

        dev.postern.app.ExitStatus status = Demo.run(Optional.empty(), new java.io.PrintStream(report, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(diagnostics, true, StandardCharsets.UTF_8), false, dir.resolve("no-postgresql-here"));

        String transcript = report.toString(StandardCharsets.UTF_8);
        String context = transcript + "\nstderr:\n" + diagnostics.toString(StandardCharsets.UTF_8);
        assertEquals(dev.postern.app.ExitStatus.OK, status, context);
        assertTrue(transcript.contains(Demo.HOW_TO_ENABLE_SQL), context);
        assertFalse(transcript.contains("sql_query shop"), "no sql_query step without PostgreSQL\n" + context);
        assertTrue(transcript.contains("demo: everything happened as expected"), context);
    }

    private static byte[] readAll(InputStream in) {
        try (in) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
