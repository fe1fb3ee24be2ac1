package dev.postern.app.check;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Reads an OpenSSH known_hosts file just enough for the deep checks: which lines name a host
 * (plain names, {@code *}/{@code ?} wildcards, {@code !} negations, hashed {@code |1|} entries) and
 * whether one of them holds a given key. Not a verifier: the SSH executor's check decides at call time.
 */
final class KnownHosts {
    private KnownHosts() {
    }

    /** How known_hosts names a host: the bare address on port 22, else {@code [address]:port}. */
    static String pattern(String address, int port) {
        return port == 22 ? address : '[' + address + "]:" + port;
    }

    /** Whether some line of {@code file} names the host; false when the file cannot be read. */
    static boolean namesHost(Path file, String address, int port) {
        return find(file, pattern(address, port), null);
    }

    /** Whether a line naming {@code hostPattern} holds {@code keyTypeAndBase64} ("ssh-ed25519 AAAA…"). */
    static boolean lists(Path file, String hostPattern, String keyTypeAndBase64) {
        return find(file, hostPattern, keyTypeAndBase64);
    }

    private static boolean find(Path file, String hostPattern, String key) {
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] f = line.strip().split("\\s+");
                if (f.length < 3 || f[0].startsWith("#") || f[0].startsWith("@")) {
                    continue;
                }
                if ((key == null || (f[1] + ' ' + f[2]).equals(key)) && hostMatches(f[0], hostPattern)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** A known_hosts host field (comma-separated patterns, or one hashed {@code |1|salt|hash}) naming {@code host}. */
    static boolean hostMatches(String field, String host) {
        if (field.startsWith("|1|")) {
            String[] parts = field.split("\\|");
            if (parts.length != 4) {
                return false;
            }
            try {
                Mac mac = Mac.getInstance("HmacSHA1");
                mac.init(new SecretKeySpec(Base64.getDecoder().decode(parts[2]), "HmacSHA1"));
                byte[] hash = mac.doFinal(host.getBytes(StandardCharsets.UTF_8));
                return Base64.getEncoder().encodeToString(hash).equals(parts[3]);
            } catch (GeneralSecurityException | IllegalArgumentException e) {
                return false;
            }
        }
        boolean matched = false;
        for (String name : field.split(",")) {
            boolean negated = name.startsWith("!");
            if (glob(negated ? name.substring(1) : name).matcher(host).matches()) {
                if (negated) {
                    return false;
                }
                matched = true;
            }
        }
        return matched;
    }

    private static Pattern glob(String pattern) {
        StringBuilder regex = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
        }
        return Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE);
    }
}
