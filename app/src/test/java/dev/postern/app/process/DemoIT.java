package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
        LauncherProcess p = LauncherProcess.run(List.of("demo"), new byte[0], dir, Map.of());
        String transcript = new String(p.stdout, StandardCharsets.UTF_8);
        String context = p.describe() + "\nstdout:\n" + transcript;

        assertEquals(0, p.exitStatus, context);
        for (byte b : p.stdout) {
            assertTrue(b != 0x1b, "piped output must carry no ANSI escape\n" + context);
        }
        List<String> lines = transcript.lines().filter(l -> !l.isBlank()).toList();
        List<String> last = lines.subList(lines.size() - 3, lines.size());
        assertEquals(List.of(
                "calls received by the HTTP service: 1 (expected 1)",
                "calls received by the SSH server: 1 (expected 1)",
                "demo: everything happened as expected"), last, context);
        assertTrue(transcript.contains("DENIED by rule http.path"), context);
        assertTrue(transcript.contains("DENIED by rule ssh.args.pattern"), context);
        assertTrue(transcript.contains("REJECTED by the tool's input schema at /followRedirects"), context);
        assertTrue(transcript.contains("gateway exited with status 2"), context);
        assertFalse(transcript.contains("UNEXPECTED"), context);
    }
}
