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
    void withoutSecretsTheBodyIsUntouched() {
        assertEquals("anything", masked(new SecretMask(List.of()), "anything", true));
    }

    @Test
    void headerTextIsMasked() {
        SecretMask mask = new SecretMask(List.of(b("k3y")));

        assertEquals("Bearer ****; again ****", mask.mask("Bearer k3y; again k3y"));
    }
}
