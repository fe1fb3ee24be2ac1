package dev.postern.policy.port;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class SecretMaskTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String masked(SecretMask mask, String body, boolean cutShort) {
        return new String(mask.mask(b(body), cutShort), StandardCharsets.UTF_8);
    }

    @Test
    void everyOccurrenceOfEverySecretIsMasked() {
        SecretMask mask = new SecretMask(List.of(b("alpha-secret"), b("beta-secret")));

        assertEquals("**** and **** and ****", masked(mask, "alpha-secret and beta-secret and alpha-secret", false));
    }

    @Test
    void aSecretContainingAnotherIsMaskedWhole() {
        SecretMask mask = new SecretMask(List.of(b("token"), b("token-extended")));

        assertEquals("[****]", masked(mask, "[token-extended]", false));
    }

    @Test
    void aCutBodyEndingInASecretsPrefixHasThatTailMasked() {
        SecretMask mask = new SecretMask(List.of(b("s3cr3t-value")));

        assertEquals("data ****", masked(mask, "data s3cr3t-v", true));
        assertEquals("data s3cr3t-v", masked(mask, "data s3cr3t-v", false));
    }

    @Test
    void aCutWithLookaheadLooksTheSameWhetherOrNotTheCutFallsIntoASecret() {
        SecretMask mask = new SecretMask(List.of(b("s3cr3t-value")));

        // An agent probing byte by byte through an echo sees a right guess and a wrong one alike.
        assertEquals("padding s", new String(mask.maskCut(b("padding s and more text"), 9), StandardCharsets.UTF_8));
        assertEquals("padding x", new String(mask.maskCut(b("padding x and more text"), 9), StandardCharsets.UTF_8));
    }

    @Test
    void aCutWithLookaheadMasksAStraddlingSecretWholeAndKeepsEveryOtherByte() {
        SecretMask mask = new SecretMask(List.of(b("s3cr3t-value")));
        assertEquals(35, mask.lookahead(), "every one of its 12 bytes may be percent-encoded: 36 bytes, less one");

        assertEquals("data ****", new String(mask.maskCut(b("data s3cr3t-value and more"), 9), StandardCharsets.UTF_8));
        assertEquals("data s3cr", new String(mask.maskCut(b("data s3cr3t-vXlue and more"), 9), StandardCharsets.UTF_8));
        assertEquals("data", new String(mask.maskCut(b("data s3cr3t-value"), 4), StandardCharsets.UTF_8));
    }

    @Test
    void aCutWithoutSecretsIsAPlainCut() {
        assertEquals("abc", new String(new SecretMask(List.of()).maskCut(b("abcdef"), 3), StandardCharsets.UTF_8));
    }

    @Test
    void secretsShorterThanTheMinimumAreNotMaskedSoOrdinaryTextSurvives() {
        SecretMask mask = new SecretMask(List.of(b("ab"), b("xyz"), b("wxyz")));

        assertEquals("about xyz and ****", masked(mask, "about xyz and wxyz", false));
        assertEquals("about xyz and ****", mask.mask("about xyz and wxyz"));
    }

    @Test
    void withoutSecretsTheBodyIsUntouched() {
        assertEquals("anything", masked(new SecretMask(List.of()), "anything", true));
    }

    @Test
    void headerTextIsMasked() {
        SecretMask mask = new SecretMask(List.of(b("k3y!")));

        assertEquals("Bearer ****; again ****", mask.mask("Bearer k3y!; again k3y!"));
    }
}
