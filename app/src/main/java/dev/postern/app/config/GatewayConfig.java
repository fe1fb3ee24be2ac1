package dev.postern.app.config;

import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.Policy;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/** A loaded, checked configuration: the policy, session limits, journal directory and rotation size, credential sources. */
public record GatewayConfig(
        Path file,
        Policy policy,
        int maxFrameBytes,
        int maxInFlight,
        Path journalDirectory,
        long journalRotateBytes,
        Map<CredentialRef, CredentialSource> credentials) {

    public static final int DEFAULT_MAX_FRAME_BYTES = ConfigDefaults.MAX_FRAME_BYTES;
    public static final int DEFAULT_MAX_IN_FLIGHT = ConfigDefaults.MAX_IN_FLIGHT;
    public static final long DEFAULT_JOURNAL_ROTATE_BYTES = ConfigDefaults.JOURNAL_ROTATE_BYTES;

    public GatewayConfig {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(policy, "policy");
        if (maxFrameBytes < 1024) {
            throw new IllegalArgumentException("maxFrameBytes must be at least 1024");
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1");
        }
        Objects.requireNonNull(journalDirectory, "journalDirectory");
        if (journalRotateBytes < 1) {
            throw new IllegalArgumentException("journalRotateBytes must be positive");
        }
        credentials = Map.copyOf(Objects.requireNonNull(credentials, "credentials"));
    }
}
