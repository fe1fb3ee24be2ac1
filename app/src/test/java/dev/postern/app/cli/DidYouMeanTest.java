package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.ExitStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** check-config tells a mistyped key what it was probably meant to be, and an undefined credential name which ones are defined. */
class DidYouMeanTest {
    @TempDir
    Path dir;

    private CliRun check(String config) throws Exception {
        Path file = dir.resolve("postern.json");
        Files.writeString(file, config);
        return CliRun.of("check-config", "--config", file.toString());
    }

    @Test
    void aMistypedKeyIsAnsweredWithTheAllowedKeyTwoEditsAwayAtThatPointer() throws Exception {
        CliRun run = check("{\"journal\":{\"directory\":\"j\",\"rotatBytes\":2000000},\"http\":{\"targets\":[{\"name\":\"a\","
                + "\"baseUrl\":\"https://a.example\",\"methods\":[\"GET\"],\"pathPrefixes\":[\"/\"],\"pathPrefix\":[\"/\"]}]}}");

        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        assertTrue(run.err().contains("at /journal/rotatBytes: property 'rotatBytes' is not defined in the schema and the schema does not"
                + " allow additional properties; did you mean 'rotateBytes'?"), run.toString());
        assertTrue(run.err().contains("at /http/targets/0/pathPrefix: property 'pathPrefix' is not defined in the schema and the schema does"
                + " not allow additional properties; did you mean 'pathPrefixes'?"), run.toString());
    }

    @Test
    void aKeyNothingAllowedIsCloseToGetsNoGuess() throws Exception {
        CliRun run = check("{\"journal\":{\"directory\":\"j\",\"colour\":\"blue\"}}");

        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        assertTrue(run.err().contains("at /journal/colour: property 'colour' is not defined"), run.toString());
        assertFalse(run.err().contains("did you mean"), run.toString());
    }

    @Test
    void anUndefinedCredentialNameListsTheDefinedOnesAndTheClosestWithoutShowingWhatWasTyped() throws Exception {
        CliRun run = check("{\"journal\":{\"directory\":\"j\"},\"credentials\":{\"api-token\":{\"env\":\"API_TOKEN\"},"
                + "\"db-password\":{\"env\":\"DB_PASSWORD\"}},\"http\":{\"targets\":[{\"name\":\"a\",\"baseUrl\":\"https://a.example\","
                + "\"methods\":[\"GET\"],\"pathPrefixes\":[\"/\"],\"auth\":{\"credential\":\"api-tokn\",\"scheme\":\"bearer\"}}]}}");

        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        assertTrue(run.err().contains("/http/targets/0/auth/credential"), run.toString());
        assertTrue(run.err().contains("; defined: api-token, db-password; did you mean 'api-token'?"), run.toString());
        assertFalse(run.err().contains("api-tokn"), "the typed value may be a secret: " + run);
    }

    @Test
    void aCredentialNameWhenNoneIsDefinedSaysSo() throws Exception {
        CliRun run = check("{\"journal\":{\"directory\":\"j\"},\"http\":{\"targets\":[{\"name\":\"a\",\"baseUrl\":\"https://a.example\","
                + "\"methods\":[\"GET\"],\"pathPrefixes\":[\"/\"],\"auth\":{\"credential\":\"api-token\",\"scheme\":\"bearer\"}}]}}");

        assertEquals(ExitStatus.CONFIG_ERROR, run.exit, run.toString());
        assertTrue(run.err().contains("; no credential is defined"), run.toString());
    }
}
