package dev.postern.policy.outcome;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A remote command that ran to its end: exit status or signal, each stream read up to the cap
 * with its own truncation flag, and the fingerprint of the host key that was verified. As the
 * {@link ExecutionFailure#partial() partial} of a timeout it holds what was read before the deadline,
 * with neither exit status nor signal.
 */
public record SshExitOutcome(
        String host,
        OptionalInt exitStatus,
        Optional<String> exitSignal,
        byte[] stdout,
        boolean stdoutTruncated,
        byte[] stderr,
        boolean stderrTruncated,
        String hostKeyFingerprint) implements Outcome {

    public SshExitOutcome {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(exitStatus, "exitStatus");
        Objects.requireNonNull(exitSignal, "exitSignal");
        stdout = Objects.requireNonNull(stdout, "stdout").clone();
        stderr = Objects.requireNonNull(stderr, "stderr").clone();
        Objects.requireNonNull(hostKeyFingerprint, "hostKeyFingerprint");
    }

    @Override
    public byte[] stdout() {
        return stdout.clone();
    }

    @Override
    public byte[] stderr() {
        return stderr.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SshExitOutcome other && host.equals(other.host) && exitStatus.equals(other.exitStatus)
                && exitSignal.equals(other.exitSignal) && Arrays.equals(stdout, other.stdout)
                && stdoutTruncated == other.stdoutTruncated && Arrays.equals(stderr, other.stderr)
                && stderrTruncated == other.stderrTruncated && hostKeyFingerprint.equals(other.hostKeyFingerprint);
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, exitStatus, exitSignal, Arrays.hashCode(stdout), Arrays.hashCode(stderr));
    }

    @Override
    public String toString() {
        return "SshExitOutcome[host=" + host + ", exitStatus=" + exitStatus + ", exitSignal=" + exitSignal
                + ", stdout=" + stdout.length + " bytes, stderr=" + stderr.length + " bytes]";
    }

    @Override
    public List<CapturedStream> streams() {
        return List.of(new CapturedStream("stdout", stdout, stdoutTruncated), new CapturedStream("stderr", stderr, stderrTruncated));
    }

    @Override
    public List<byte[]> visibleParts() {
        List<byte[]> parts = new java.util.ArrayList<>();
        parts.add(host.getBytes(StandardCharsets.UTF_8));
        exitSignal.ifPresent(signal -> parts.add(signal.getBytes(StandardCharsets.UTF_8)));
        parts.add(stdout.clone());
        parts.add(stderr.clone());
        parts.add(hostKeyFingerprint.getBytes(StandardCharsets.UTF_8));
        return parts;
    }
}
