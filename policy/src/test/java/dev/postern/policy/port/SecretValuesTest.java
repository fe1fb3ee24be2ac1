package dev.postern.policy.port;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postern.policy.model.CredentialRef;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The small port values: a secret that hides itself and copies its bytes, a rejection that only
 * takes a real SHA-256, the journal's stage names, and a mask built from a credential store.
 */
class SecretValuesTest {

    @Test
    void aSecretRevealsExactlyItsBytesAndItsText() {
        Secret s = Secret.of("pässword");
        assertArrayEquals("pässword".getBytes(StandardCharsets.UTF_8), s.reveal());
        assertEquals("pässword", s.revealAsString());
    }

    @Test
    void aSecretCopiesItsBytesInAndOut() {
        byte[] raw = {1, 2, 3};
        Secret s = new Secret(raw);
        raw[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, s.reveal());
        s.reveal()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, s.reveal());
    }

    @Test
    void anEmptySecretIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Secret(new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> Secret.of(""));
    }

    @Test
    void aSecretNeverPrintsItsValue() {
        assertEquals("Secret[****]", Secret.of("hunter2").toString());
    }

    @Test
    void secretsAreEqualByTheirBytes() {
        assertEquals(Secret.of("a"), Secret.of("a"));
        assertEquals(Secret.of("a").hashCode(), Secret.of("a").hashCode());
        assertNotEquals(Secret.of("a"), Secret.of("b"));
        assertNotEquals(Secret.of("a").hashCode(), Secret.of("b").hashCode());
        assertNotEquals(Secret.of("a"), (Object) "a");
        assertEquals(2, Set.of(Secret.of("a"), Secret.of("b")).size());
    }

    @Test
    void aMaskOverAStoreMasksEverySecretItHolds() {
        CredentialStore store = new CredentialStore() {
            @Override
            public Secret resolve(CredentialRef ref) throws CredentialUnavailableException {
                throw new CredentialUnavailableException("not needed here: " + ref);
            }

            @Override
            public Set<Secret> all() {
                return Set.of(Secret.of("alpha"), Secret.of("beta"));
            }
        };
        SecretMask mask = SecretMask.of(store);
        assertEquals("x **** y **** z", mask.mask("x alpha y beta z"));
        assertArrayEquals("****-****".getBytes(StandardCharsets.US_ASCII),
                mask.mask("alpha-beta".getBytes(StandardCharsets.US_ASCII), false));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "abc", "0000000000000000000000000000000000000000000000000000000000000000a",
        "000000000000000000000000000000000000000000000000000000000000000", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"})
    void aRejectionNeedsAFrameShaOf64LowerCaseHexDigits(String sha) {
        assertThrows(IllegalArgumentException.class, () -> new Rejection(Stage.JSON, "PARSE_ERROR", Optional.empty(), sha));
    }

    @Test
    void aRejectionWithoutAFrameShaIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Rejection(Stage.JSON, "PARSE_ERROR", Optional.empty(), null));
    }

    @Test
    void aRejectionKeepsWhatItWasGiven() {
        String sha = "0123456789abcdef".repeat(4);
        Rejection r = new Rejection(Stage.POLICY, "DENIED", Optional.of("http.api.method"), sha);
        assertEquals(Stage.POLICY, r.stage());
        assertEquals("DENIED", r.reasonCode());
        assertEquals(Optional.of("http.api.method"), r.rule());
        assertEquals(sha, r.frameSha256());
    }

    @ParameterizedTest
    @EnumSource(Stage.class)
    void aStageIsJournaledByItsLowerCaseName(Stage stage) {
        assertEquals(stage.name().toLowerCase(java.util.Locale.ROOT), stage.wireName());
    }

    @Test
    void stageWireNamesAreTheJournalsVocabulary() {
        assertEquals("framing", Stage.FRAMING.wireName());
        assertEquals("jsonrpc", Stage.JSONRPC.wireName());
        assertEquals("policy", Stage.POLICY.wireName());
    }

    @Test
    void aCredentialRefPrintsItsNameOnly() {
        assertEquals("deploy-key", new CredentialRef("deploy-key").toString());
    }
}
