package dev.postern.journal;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a session row says about the gateway process when it starts (DESIGN §6): a random session id
 * that every row of the session carries, the pid, the config file and the SHA-256 of its bytes, and
 * Postern's version. The client's facts are only known later (after {@code initialize} or the first
 * stateless request) and get their own row. Immutable.
 */
public record SessionFacts(String id, long pid, Path configFile, String configSha256, String posternVersion) {
    private static final Pattern ID = Pattern.compile("[0-9a-f]{16}");
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private static final SecureRandom RANDOM = new SecureRandom();

    public SessionFacts {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("a session id is 16 lower-case hex digits");
        }
        Objects.requireNonNull(configFile, "configFile");
        if (configSha256 == null || !SHA256.matcher(configSha256).matches()) {
            throw new IllegalArgumentException("configSha256 must be 64 lower-case hex digits");
        }
        Objects.requireNonNull(posternVersion, "posternVersion");
    }

    /** This process's facts: a fresh id, its pid, and the config file with the SHA-256 of the bytes it was loaded from. */
    public static SessionFacts of(Path configFile, String configSha256, String posternVersion) {
        byte[] id = new byte[8];
        RANDOM.nextBytes(id);
        return new SessionFacts(HexFormat.of().formatHex(id), ProcessHandle.current().pid(), configFile, configSha256, posternVersion);
    }
}
