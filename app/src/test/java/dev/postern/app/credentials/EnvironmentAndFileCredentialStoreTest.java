package dev.postern.app.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.config.CredentialSource;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Credentials from the environment and from owner-only files; messages name the credential, never the value. */
class EnvironmentAndFileCredentialStoreTest {
    private static final String VALUE = "s3cr3t-Value-9f2c";
    private static final CredentialRef TOKEN = new CredentialRef("api-token");

    @TempDir
    Path dir;

    private static EnvironmentAndFileCredentialStore env(Map<String, String> environment) {
        return new EnvironmentAndFileCredentialStore(Map.of(TOKEN, new CredentialSource.Env("API_TOKEN")), environment::get);
    }

    private Path file(String content, String mode) throws Exception {
        Path f = dir.resolve("token");
        Files.writeString(f, content, StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    private static EnvironmentAndFileCredentialStore fileStore(Path f) {
        return new EnvironmentAndFileCredentialStore(Map.of(TOKEN, new CredentialSource.File(f)), name -> null);
    }

    @Test
    void aSetEnvironmentVariableResolves() throws Exception {
        assertEquals(VALUE, env(Map.of("API_TOKEN", VALUE)).resolve(TOKEN).revealAsString());
    }

    @Test
    void anUnsetEnvironmentVariableNamesTheCredentialToTheAgentAndTheVariableToTheOperator() {
        CredentialUnavailableException e = assertThrows(CredentialUnavailableException.class, () -> env(Map.of()).resolve(TOKEN));
        assertTrue(e.getMessage().contains("api-token") && !e.getMessage().contains("API_TOKEN"), e.getMessage());
        assertTrue(e.detail().contains("api-token") && e.detail().contains("API_TOKEN"), e.detail());
    }

    @Test
    void aTokenPastedAsTheVariableNameIsNotInTheMessageTheAgentGets() {
        String pasted = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
        EnvironmentAndFileCredentialStore store =
                new EnvironmentAndFileCredentialStore(Map.of(TOKEN, new CredentialSource.Env(pasted)), name -> null);
        CredentialUnavailableException e = assertThrows(CredentialUnavailableException.class, () -> store.resolve(TOKEN));
        assertTrue(e.getMessage().contains("api-token"), e.getMessage());
        assertFalse(e.getMessage().contains("16C7e42F292c"), e.getMessage());
        assertFalse(e.detail().contains("16C7e42F292c"), e.detail());
    }

    @Test
    void anEmptyEnvironmentVariableCountsAsUnset() {
        assertThrows(CredentialUnavailableException.class, () -> env(Map.of("API_TOKEN", "")).resolve(TOKEN));
    }

    @Test
    void theEnvironmentIsReadOnEveryUseSoARotatedValueTakesEffect() throws Exception {
        Map<String, String> environment = new java.util.HashMap<>(Map.of("API_TOKEN", "first"));
        EnvironmentAndFileCredentialStore store = env(environment);
        assertEquals("first", store.resolve(TOKEN).revealAsString());
        environment.put("API_TOKEN", "second");
        assertEquals("second", store.resolve(TOKEN).revealAsString());
    }

    @Test
    void anOwnerOnlyFileIsAcceptedWithItsTrailingNewlineStripped() throws Exception {
        assertEquals(VALUE, fileStore(file(VALUE + "\n", "rw-------")).resolve(TOKEN).revealAsString());
        assertEquals(VALUE, fileStore(file(VALUE + "\r\n", "r--------")).resolve(TOKEN).revealAsString());
    }

    @Test
    void onlyTheTrailingLineEndIsStripped() throws Exception {
        assertEquals("  a\nb ", fileStore(file("  a\nb \n", "rw-------")).resolve(TOKEN).revealAsString());
    }

    @Test
    void aGroupOrWorldReadableFileIsRefusedNamingTheCredentialNeverTheValue() throws Exception {
        for (String mode : new String[] {"rw-r--r--", "rw-r-----", "rw----r--", "rw--w----"}) {
            Path f = file(VALUE + "\n", mode);
            CredentialUnavailableException e = assertThrows(CredentialUnavailableException.class, () -> fileStore(f).resolve(TOKEN), mode);
            assertTrue(e.getMessage().contains("api-token") && e.getMessage().contains("group or others"), e.getMessage());
            assertFalse(e.getMessage().contains(f.toString()), "the agent is not told where the secret lives: " + e.getMessage());
            assertTrue(e.detail().contains(f.toString()) && e.detail().contains("chmod 600"), e.detail());
            assertFalse(e.getMessage().contains(VALUE) || e.detail().contains(VALUE), "the value leaked into: " + e.detail());
        }
    }

    @Test
    void anEmptyFileIsRefused() throws Exception {
        Path f = file("\n", "rw-------");
        CredentialUnavailableException e = assertThrows(CredentialUnavailableException.class, () -> fileStore(f).resolve(TOKEN));
        assertTrue(e.getMessage().contains("api-token") && e.getMessage().contains("empty"), e.getMessage());
    }

    @Test
    void aMissingFileNamesTheCredentialToTheAgentAndThePathToTheOperator() {
        Path f = dir.resolve("absent");
        CredentialUnavailableException e = assertThrows(CredentialUnavailableException.class, () -> fileStore(f).resolve(TOKEN));
        assertTrue(e.getMessage().contains("api-token") && !e.getMessage().contains(f.toString()), e.getMessage());
        assertFalse(e.getMessage().contains("Exception"), e.getMessage());
        assertTrue(e.detail().contains("api-token") && e.detail().contains(f.toString()), e.detail());
    }

    @Test
    void anUnconfiguredCredentialIsRefused() {
        CredentialUnavailableException e = assertThrows(CredentialUnavailableException.class,
                () -> env(Map.of("API_TOKEN", VALUE)).resolve(new CredentialRef("other")));
        assertTrue(e.getMessage().contains("other"), e.getMessage());
    }

    @Test
    void allListsEveryReadableSecretForMaskingAndSkipsTheUnreadable() throws Exception {
        Path f = file("from-file\n", "rw-------");
        EnvironmentAndFileCredentialStore store = new EnvironmentAndFileCredentialStore(Map.of(
                TOKEN, new CredentialSource.Env("API_TOKEN"),
                new CredentialRef("key"), new CredentialSource.File(f),
                new CredentialRef("gone"), new CredentialSource.Env("UNSET_VARIABLE")),
                Map.of("API_TOKEN", VALUE)::get);
        assertEquals(Set.of(Secret.of(VALUE), Secret.of("from-file")), store.all());
    }
}
