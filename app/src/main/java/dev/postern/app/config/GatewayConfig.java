package dev.postern.app.config;

import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.Policy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A loaded, checked configuration: the file and the SHA-256 of the bytes loaded, the policy, session
 * limits (including how long a human's approval may take), journal directory, rotation size,
 * checkpoint signing key (a credential name) and whether rows keep only digests of arguments,
 * credential sources, the telemetry export when the file has a {@code telemetry} section, and which
 * approval channel answers each {@code confirm} rule.
 */
public record GatewayConfig(
        Path file,
        Policy policy,
        int maxFrameBytes,
        int maxInFlight,
        Path journalDirectory,
        long journalRotateBytes,
        Map<CredentialRef, CredentialSource> credentials,
        Optional<CredentialRef> journalSigningKey,
        boolean journalRedactArguments,
        String fileSha256,
        Duration approvalTimeout,
        Optional<TelemetrySettings> telemetry,
        ApprovalChannels approvalChannels) {

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
        Objects.requireNonNull(journalSigningKey, "journalSigningKey");
        if (journalSigningKey.isPresent() && !credentials.containsKey(journalSigningKey.get())) {
            throw new IllegalArgumentException("journal.signingKey names no configured credential");
        }
        if (fileSha256 == null || !fileSha256.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("fileSha256 must be 64 lower-case hex digits");
        }
        Objects.requireNonNull(approvalTimeout, "approvalTimeout");
        if (approvalTimeout.compareTo(Duration.ofSeconds(1)) < 0 || approvalTimeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("approvalTimeout must be 1 s .. 1 h");
        }
        Objects.requireNonNull(telemetry, "telemetry");
        Objects.requireNonNull(approvalChannels, "approvalChannels");
        if (telemetry.isPresent()) {
            for (Map.Entry<String, CredentialRef> header : telemetry.get().headers().entrySet()) {
                if (!credentials.containsKey(header.getValue())) {
                    throw new IllegalArgumentException("telemetry header " + header.getKey() + " names no configured credential");
                }
            }
        }
    }

    /** A configuration without telemetry. */
    public GatewayConfig(Path file, Policy policy, int maxFrameBytes, int maxInFlight, Path journalDirectory,
                         long journalRotateBytes, Map<CredentialRef, CredentialSource> credentials,
                         Optional<CredentialRef> journalSigningKey, boolean journalRedactArguments, String fileSha256,
                         Duration approvalTimeout) {
        this(file, policy, maxFrameBytes, maxInFlight, journalDirectory, journalRotateBytes, credentials, journalSigningKey,
                journalRedactArguments, fileSha256, approvalTimeout, Optional.empty(), ApprovalChannels.DEFAULT);
    }

    /** A configuration whose approvals {@code approvalChannels} answer, without telemetry. */
    public GatewayConfig(Path file, Policy policy, int maxFrameBytes, int maxInFlight, Path journalDirectory,
                         long journalRotateBytes, Map<CredentialRef, CredentialSource> credentials,
                         Optional<CredentialRef> journalSigningKey, boolean journalRedactArguments, String fileSha256,
                         Duration approvalTimeout, Optional<TelemetrySettings> telemetry) {
        this(file, policy, maxFrameBytes, maxInFlight, journalDirectory, journalRotateBytes, credentials, journalSigningKey,
                journalRedactArguments, fileSha256, approvalTimeout, telemetry, ApprovalChannels.DEFAULT);
    }

    /** This configuration with its approvals answered by {@code channels}. */
    public GatewayConfig withApprovalChannels(ApprovalChannels channels) {
        return new GatewayConfig(file, policy, maxFrameBytes, maxInFlight, journalDirectory, journalRotateBytes, credentials,
                journalSigningKey, journalRedactArguments, fileSha256, approvalTimeout, telemetry, channels);
    }

    /** This configuration with {@code telemetry} in place of its own. */
    public GatewayConfig withTelemetry(Optional<TelemetrySettings> telemetry) {
        return new GatewayConfig(file, policy, maxFrameBytes, maxInFlight, journalDirectory, journalRotateBytes, credentials,
                journalSigningKey, journalRedactArguments, fileSha256, approvalTimeout, telemetry, approvalChannels);
    }

    /** A configuration whose approvals wait the default time. */
    public GatewayConfig(Path file, Policy policy, int maxFrameBytes, int maxInFlight, Path journalDirectory,
                         long journalRotateBytes, Map<CredentialRef, CredentialSource> credentials,
                         Optional<CredentialRef> journalSigningKey, boolean journalRedactArguments, String fileSha256) {
        this(file, policy, maxFrameBytes, maxInFlight, journalDirectory, journalRotateBytes, credentials, journalSigningKey,
                journalRedactArguments, fileSha256, Duration.ofSeconds(ConfigDefaults.APPROVAL_TIMEOUT_SECONDS));
    }
}
