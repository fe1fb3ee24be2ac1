package dev.postern.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.ExitStatus;
import dev.postern.app.cli.Io;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo jar's command line: {@code demo --help}, and usage errors, as {@code bin/postern demo} passes them. */
class DemoMainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Io io = new Io(out, new ByteArrayInputStream(new byte[0]), new PrintStream(err, true, StandardCharsets.UTF_8));

    @Test
    void demoHelpPrintsTheUsageOnStdoutAndSucceeds() {
        ExitStatus status = DemoMain.run(List.of("demo", "--help"), io);

        assertEquals(ExitStatus.OK, status);
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("usage: postern demo [--dir DIR]"), out::toString);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("Exit status"), out::toString);
    }

    @Test
    void anUnknownOptionIsAUsageErrorOnStderr() {
        ExitStatus status = DemoMain.run(List.of("demo", "--bogus"), io);

        assertEquals(ExitStatus.USAGE, status);
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("postern demo: "), err::toString);
        assertEquals(0, out.size(), "nothing on stdout");
    }

    @Test
    void anotherCommandThanDemoIsAUsageError() {
        assertEquals(ExitStatus.USAGE, DemoMain.run(List.of("mcp-stdio"), io));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("the first argument must be 'demo'"), err::toString);
    }
}
