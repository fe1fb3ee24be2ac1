package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.ExitStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code postern check-config --lint}: warnings printed after what the config allows, the exit status unchanged. */
class CheckConfigLintTest {
    @TempDir
    Path dir;

    @Test
    void lintWarningsArePrintedWithTheirIdsAndDoNotFailTheCheck() throws Exception {
        Path config = dir.resolve("postern.json");
        Files.writeString(config, """
                { "journal": { "directory": "./journal" },
                  "http": { "targets": [ { "name": "api", "baseUrl": "https://api.example", "methods": ["GET"],
                    "pathPrefixes": ["/v1", "/v1/items"] } ] } }
                """);
        CliRun run = CliRun.of("check-config", "--lint", "--config", config.toString());

        assertEquals(ExitStatus.OK, run.exit, run.toString());
        assertTrue(run.out().contains("\nlint: 2 warnings\n"), run.out());
        assertTrue(run.out().contains("warning [prefix-overlap] /http/targets/0/pathPrefixes/1: target api: /v1/items is already"
                + " allowed by /v1"), run.out());
        assertTrue(run.out().contains("warning [no-rate-limit] /http/targets/0: http target api has no rateLimit"), run.out());

        CliRun plain = CliRun.of("check-config", "--config", config.toString());
        assertFalse(plain.out().contains("lint"), plain.out());
    }
}
