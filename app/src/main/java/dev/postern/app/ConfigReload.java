package dev.postern.app;

import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import dev.postern.transport.Sha256;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Whether a running gateway takes the current bytes of its config file: the decision, with no side
 * effect but reading the file. Bytes already seen (the SHA-256 of the version in force, or of the version
 * last refused) change nothing; a new version is loaded and checked as {@code check-config} would; a
 * valid one is taken only if it changes nothing that must stay for the life of the process
 * ({@link #needsRestart}). Stateless; the caller keeps what it last saw.
 */
final class ConfigReload {

    /** What to do with the file's current bytes, with their SHA-256 (empty when the file could not be read). */
    sealed interface Verdict {
        String sha256();

        /** Bytes already seen: nothing to do, nothing to say. */
        record Unchanged(String sha256) implements Verdict {
            public Unchanged {
                Objects.requireNonNull(sha256, "sha256");
            }
        }

        /** A valid new version that may replace the one in force. */
        record Reload(GatewayConfig next) implements Verdict {
            public Reload {
                Objects.requireNonNull(next, "next");
            }

            @Override
            public String sha256() {
                return next.fileSha256();
            }
        }

        /**
         * A new version refused: {@code reason} is {@code invalid} (the file cannot be read, parsed or
         * checked) or {@code needs-restart}; {@code problem} says where and what, as check-config would,
         * on one line; the policy in force stays.
         */
        record Refuse(String sha256, String reason, String problem) implements Verdict {
            public Refuse {
                Objects.requireNonNull(sha256, "sha256");
                if (!reason.equals(INVALID) && !reason.equals(NEEDS_RESTART)) {
                    throw new IllegalArgumentException("reason must be " + INVALID + " or " + NEEDS_RESTART);
                }
                Objects.requireNonNull(problem, "problem");
                if (problem.contains("\n")) {
                    throw new IllegalArgumentException("problem must be one line");
                }
            }

            /** The one warning line on stderr. */
            String warning(Path file) {
                return "postern: config " + file + " changed but was not reloaded (" + reason + "): " + problem
                        + "; the policy in force stays";
            }
        }
    }

    static final String INVALID = "invalid";
    static final String NEEDS_RESTART = "needs-restart";

    /**
     * What only a restart changes, by the config member (or member of {@code session}) it is read from:
     * the session's limits (the reader, the worker pool and the approval codec are built with them), the
     * approval channels ({@code session.approval} and each rule's {@code confirm} channel: the approval
     * step is built with them), the
     * journal (its directory, rotation, signing key and redaction belong to the open journal), the
     * credential sources (the credential store and the secret mask are built with them), the telemetry
     * export, and every kind whose tools are known only at run time (its servers are child processes
     * started once): {@code /mcp}.
     */
    static List<String> needsRestart(GatewayConfig now, GatewayConfig next) {
        List<String> changed = new ArrayList<>();
        if (now.maxFrameBytes() != next.maxFrameBytes()) {
            changed.add("/session/maxFrameBytes");
        }
        if (now.maxInFlight() != next.maxInFlight()) {
            changed.add("/session/maxInFlight");
        }
        if (!now.approvalTimeout().equals(next.approvalTimeout())) {
            changed.add("/session/approvalTimeoutSeconds");
        }
        // The approval step is built with the channels, so a changed channel would be ignored: say so instead.
        if (now.approvalChannels().session() != next.approvalChannels().session()) {
            changed.add("/session/approval");
        }
        new java.util.TreeSet<>(union(now.approvalChannels().byRule().keySet(), next.approvalChannels().byRule().keySet())).forEach(rule -> {
            if (!java.util.Objects.equals(now.approvalChannels().byRule().get(rule), next.approvalChannels().byRule().get(rule))) {
                changed.add("the confirm channel of " + rule);
            }
        });
        if (!now.journalDirectory().equals(next.journalDirectory()) || now.journalRotateBytes() != next.journalRotateBytes()
                || !now.journalSigningKey().equals(next.journalSigningKey())
                || now.journalRedactArguments() != next.journalRedactArguments()) {
            changed.add("/journal");
        }
        if (!now.credentials().equals(next.credentials())) {
            changed.add("/credentials");
        }
        if (!now.telemetry().equals(next.telemetry())) {
            changed.add("/telemetry");
        }
        for (Registration<?> r : Gateway.KINDS) {
            if (r.toolSource() && !now.policy().allowances(r.kind().allowanceType())
                    .equals(next.policy().allowances(r.kind().allowanceType()))) {
                changed.add("/" + r.section().member());
            }
        }
        return changed;
    }

    private static java.util.Set<String> union(java.util.Set<String> a, java.util.Set<String> b) {
        java.util.Set<String> all = new java.util.HashSet<>(a);
        all.addAll(b);
        return all;
    }

    private ConfigReload() {
    }

    /**
     * The verdict on {@code file}'s current bytes for a gateway running {@code now}, which last saw the
     * version whose SHA-256 is {@code lastSeen} (the one in force, or the one it last refused).
     */
    static Verdict decide(GatewayConfig now, String lastSeen, ConfigLoader loader) {
        Path file = now.file();
        String sha256;
        try {
            sha256 = Sha256.of(Files.readAllBytes(file));
        } catch (IOException e) {
            // Between an editor's delete and its write, or a file made unreadable: refused once, said once.
            return lastSeen.isEmpty() ? new Verdict.Unchanged("")
                    : new Verdict.Refuse("", INVALID, "the file cannot be read (" + (e.getClass() == IOException.class ? ""
                            : e.getClass().getSimpleName() + ": ") + e.getMessage() + ")");
        }
        if (sha256.equals(lastSeen) || sha256.equals(now.fileSha256())) {
            return new Verdict.Unchanged(sha256);
        }
        GatewayConfig next;
        try {
            next = loader.load(file);
        } catch (ConfigException e) {
            return new Verdict.Refuse(sha256, INVALID, oneLine(e));
        } catch (RuntimeException e) {
            return new Verdict.Refuse(sha256, INVALID, "the file cannot be checked: " + e.getMessage());
        }
        List<String> fixed = needsRestart(now, next);
        if (!fixed.isEmpty()) {
            return new Verdict.Refuse(next.fileSha256(), NEEDS_RESTART, fixed.stream().map(p -> "at " + p)
                    .collect(Collectors.joining(", ")) + ": changes only when the gateway restarts");
        }
        return new Verdict.Reload(next);
    }

    /** A config error as check-config prints it, its problems joined on one line. */
    static String oneLine(ConfigException e) {
        return e.problems().size() == 1 ? e.getMessage().replace('\n', ' ')
                : e.file() + ": " + e.problems().stream()
                        .map(p -> (p.pointer() == null ? "" : "at " + (p.pointer().isEmpty() ? "/" : p.pointer()) + ": ") + p.expected())
                        .collect(Collectors.joining("; "));
    }
}
