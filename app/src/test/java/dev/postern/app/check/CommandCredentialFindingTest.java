package dev.postern.app.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.Gateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --deep} runs a {@code command} credential once and reports how it failed, never what it
 * printed; the start-up check only looks its program up and runs nothing.
 */
class CommandCredentialFindingTest {
    private static final String VALUE = "deep-Check-Secret-31a7";

    @TempDir
    Path dir;

    private DeepCheck check(String script) throws Exception {
        Path program = dir.resolve("get-secret");
        Files.writeString(program, "#!/bin/sh\ntouch " + dir.resolve("ran") + "\n" + script + "\n");
        Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwx------"));
        Path file = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "j" },
                  "credentials": { "t": { "command": ["%s", "--field", "token"] } } }
                """.formatted(program));
        Map<String, String> env = Map.of("PATH", "/usr/bin:/bin");
        return new DeepCheck(Gateway.configLoader().load(file), List.of(), env::get);
    }

    @Test
    void aCommandThatPrintsItsSecretHasNoFinding() throws Exception {
        assertEquals(List.of(), check("echo " + VALUE).credentials(true));
        assertTrue(Files.exists(dir.resolve("ran")), "--deep ran it");
    }

    @Test
    void aCommandThatFailsIsAnErrorWithItsStatusAndNothingItPrinted() throws Exception {
        List<Finding> findings = check("echo " + VALUE + "; echo " + VALUE + " >&2; exit 4").credentials(true);

        assertEquals(1, findings.size(), findings.toString());
        Finding f = findings.get(0);
        assertEquals(Finding.Severity.ERROR, f.severity());
        assertEquals("credential-command-failed", f.id());
        assertEquals("/credentials/t", f.where());
        assertTrue(f.message().startsWith("command " + dir.resolve("get-secret") + " exited with status 4"), f.message());
        assertFalse(f.line().contains(VALUE) || f.line().contains("--field"), f.line());
    }

    @Test
    void theStartUpCheckRunsNoCommand() throws Exception {
        assertEquals(List.of(), check("exit 1").atStart());
        assertFalse(Files.exists(dir.resolve("ran")), "the start-up check must not run it");
    }
}
