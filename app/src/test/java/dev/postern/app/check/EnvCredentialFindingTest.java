package dev.postern.app.check;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.Gateway;
import dev.postern.app.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unset {@code env} credential is named in its finding only when its name looks like an
 * environment variable's (upper case): a token pasted where the variable's name belongs matches
 * the schema's name pattern too, and the finding (also a start-up warning) must not show it.
 */
class EnvCredentialFindingTest {
    @TempDir
    Path dir;

    private List<Finding> findingsFor(String variable) throws Exception {
        Path file = Files.writeString(dir.resolve("postern.json"), """
                { "journal": { "directory": "j" },
                  "credentials": { "t": { "env": "%s" } },
                  "http": { "targets": [ { "name": "a", "baseUrl": "https://example.com", "methods": ["GET"],
                    "pathPrefixes": ["/x"], "auth": { "credential": "t", "scheme": "bearer" } } ] } }
                """.formatted(variable));
        return new DeepCheck(Gateway.configLoader().load(file), List.of(), name -> null).credentials(true);
    }

    @Test
    void anUnsetUpperCaseVariableIsNamed() throws Exception {
        List<Finding> findings = findingsFor("GITHUB_TOKEN");
        assertEquals(1, findings.size());
        assertTrue(findings.get(0).line().contains("environment variable GITHUB_TOKEN is not set"), findings.toString());
    }

    @Test
    void aTokenPastedAsTheVariableNameIsNotShown() throws Exception {
        List<Finding> findings = findingsFor("ghp_16C7e42F292c6912E7710c838347Ae178B4a");
        assertEquals(1, findings.size());
        String line = findings.get(0).line();
        assertTrue(line.contains("credential-env-unset"), line);
        assertTrue(line.contains("/credentials/t: ") && line.contains("not shown"), line);
        assertFalse(line.contains("16C7e42F292c"), line);
    }
}
