package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.ExitStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every subcommand answers {@code --help} with its usage and exit 0, and the top-level usage lists it. */
class HelpTest {

    @ParameterizedTest
    @ValueSource(strings = {"mcp-stdio", "check-config", "explain", "audit", "trust-host"})
    void everyCommandPrintsItsHelp(String name) {
        CliRun run = CliRun.of(name, "--help");

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        // mcp-stdio keeps stdout for protocol lines, so its help goes to stderr.
        String text = name.equals("mcp-stdio") ? run.err() : run.out();
        assertTrue(text.startsWith("usage: postern " + name), run.toString());
        assertTrue(text.contains("Exit status"), "help documents the exit statuses: " + text);
        assertTrue(CliRun.of("--help").out().contains("\n  " + name + " "), "top-level usage lists " + name);
    }
}
