package dev.postern.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.port.ApprovalRecord.Channel;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The terminal's approval channel ({@code postern approvals}), as files in {@code <journal>/approvals/}
 * (directory 0700): each gateway publishes each held action as {@code ID.pending} (0600, JSON: id,
 * pid, expiry, tool, rule, client, the action as the question shows it, its digest) and deletes it
 * when the action ends; the command answers one by writing {@code ID.answer} (0600, JSON: decision
 * and digest), which the owning gateway picks up by polling (every {@link #POLL_MILLIS} ms) only if it
 * is a regular file, mode exactly 0600 and owned by the gateway's own uid. A pending file whose pid
 * is not alive, or whose expiry has passed, is stale: listed by no one, answerable by no one.
 * Any number of gateways share the directory; each reads only its own ids' answers. Thread-safe.
 */
public final class ApprovalFiles implements LocalApprovals.Listener {
    static final long POLL_MILLIS = 200;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern ID = Pattern.compile("[0-9a-f]{10}");
    private static final Set<PosixFilePermission> OWNER_RW = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_RWX = PosixFilePermissions.fromString("rwx------");

    private final LocalApprovals approvals;
    private final Path dir;
    private final PrintStream diagnostics;
    private ScheduledExecutorService poller;

    private ApprovalFiles(LocalApprovals approvals, Path dir, PrintStream diagnostics) {
        this.approvals = approvals;
        this.dir = dir;
        this.diagnostics = diagnostics;
    }

    /** Publishes {@code approvals}' held actions under {@code journalDirectory} and takes the terminal's answers to them. */
    static void watch(LocalApprovals approvals, Path journalDirectory, PrintStream diagnostics) {
        approvals.listen(new ApprovalFiles(Objects.requireNonNull(approvals, "approvals"), directory(journalDirectory),
                Objects.requireNonNull(diagnostics, "diagnostics")));
    }

    /** {@code <journal>/approvals}. */
    public static Path directory(Path journalDirectory) {
        return journalDirectory.resolve("approvals");
    }

    /** One published held action, as {@code postern approvals list} shows it. */
    public record Pending(String id, long pid, Instant expiry, String tool, String rule, String client, String action,
                          String digest) {
        public Pending {
            if (id == null || !ID.matcher(id).matches()) {
                throw new IllegalArgumentException("id must be 10 hex digits");
            }
            Objects.requireNonNull(expiry, "expiry");
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(digest, "digest");
        }

        /** Whether its gateway is alive and it has not expired. */
        public boolean live(Instant now) {
            return now.isBefore(expiry) && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        }
    }

    @Override
    public void opened(LocalApprovals.Held held) {
        try {
            ensureDirectory(dir);
            ObjectNode row = JSON.createObjectNode();
            row.put("id", held.id());
            row.put("pid", ProcessHandle.current().pid());
            row.put("expiry", held.expiry().toString());
            row.put("tool", held.shown().tool());
            row.put("rule", held.shown().rule());
            row.put("client", held.shown().client());
            row.put("action", held.shown().message());
            row.put("digest", held.shown().digest());
            writePrivate(dir.resolve(held.id() + ".pending"), row.toString());
            startPolling();
        } catch (IOException | RuntimeException e) {
            diagnostics.println("postern: could not publish approval " + held.id() + " for postern approvals ("
                    + e.getClass().getSimpleName() + "); the page still answers it");
        }
    }

    @Override
    public void ended(LocalApprovals.Held held) {
        try {
            Files.deleteIfExists(dir.resolve(held.id() + ".pending"));
            Files.deleteIfExists(dir.resolve(held.id() + ".answer"));
        } catch (IOException e) {
            diagnostics.println("postern: could not remove approval " + held.id() + "'s files (" + e.getClass().getSimpleName() + ")");
        }
    }

    private synchronized void startPolling() {
        if (poller != null) {
            return;
        }
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "postern-approval-files");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(this::poll, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Takes the answer files of this gateway's held actions; refuses (and removes) one that is not private to this user. */
    private void poll() {
        for (LocalApprovals.Held held : approvals.held()) {
            Path answer = dir.resolve(held.id() + ".answer");
            Path mine = dir.resolve(held.id() + ".pending");
            try {
                if (!Files.exists(answer, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                if (!Files.isRegularFile(answer, LinkOption.NOFOLLOW_LINKS)
                        || !Files.getPosixFilePermissions(answer, LinkOption.NOFOLLOW_LINKS).equals(OWNER_RW)
                        || !Files.getAttribute(answer, "unix:uid", LinkOption.NOFOLLOW_LINKS)
                                .equals(Files.getAttribute(mine, "unix:uid", LinkOption.NOFOLLOW_LINKS))) {
                    diagnostics.println("postern: ignored an answer to approval " + held.id()
                            + ": not a regular file of mode 0600 owned by this user");
                    Files.deleteIfExists(answer);
                    continue;
                }
                JsonNode row = JSON.readTree(Files.readString(answer, StandardCharsets.UTF_8));
                Files.deleteIfExists(answer);
                String decision = row.path("decision").asText("");
                if (!decision.equals("approve") && !decision.equals("deny")) {
                    diagnostics.println("postern: ignored an answer to approval " + held.id() + ": no decision");
                    continue;
                }
                approvals.answer(held.id(), row.path("digest").asText(""), decision.equals("approve"), Channel.TERMINAL);
            } catch (IOException | RuntimeException e) {
                diagnostics.println("postern: could not read an answer to approval " + held.id() + " (" + e.getClass().getSimpleName() + ")");
            }
        }
    }

    /** Every pending file in {@code dir} that can be read, stale ones included ({@link Pending#live}). */
    public static List<Pending> list(Path dir) throws IOException {
        List<Pending> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.pending")) {
            for (Path f : files) {
                read(f).ifPresent(out::add);
            }
        }
        out.sort(java.util.Comparator.comparing(Pending::expiry));
        return out;
    }

    private static Optional<Pending> read(Path f) {
        try {
            JsonNode r = JSON.readTree(Files.readString(f, StandardCharsets.UTF_8));
            return Optional.of(new Pending(r.path("id").asText(), r.path("pid").asLong(), Instant.parse(r.path("expiry").asText()),
                    r.path("tool").asText(), r.path("rule").asText(), r.path("client").asText(), r.path("action").asText(),
                    r.path("digest").asText()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes the answer to live pending approval {@code id} in {@code dir}; empty when there is no such
     * live approval (unknown, answered, expired, or its gateway is gone).
     */
    public static Optional<Pending> answer(Path dir, String id, boolean approve) throws IOException {
        if (!ID.matcher(id).matches()) {
            return Optional.empty();
        }
        Optional<Pending> pending = read(dir.resolve(id + ".pending")).filter(p -> p.id().equals(id) && p.live(Instant.now()));
        if (pending.isEmpty()) {
            return pending;
        }
        ObjectNode row = JSON.createObjectNode();
        row.put("decision", approve ? "approve" : "deny");
        row.put("digest", pending.get().digest());
        Path tmp = dir.resolve(id + ".answer.tmp-" + ProcessHandle.current().pid());
        writePrivate(tmp, row.toString());
        Files.move(tmp, dir.resolve(id + ".answer"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return pending;
    }

    /** Whether pending approval {@code id}'s file is still there (its gateway deletes it once the action ends). */
    public static boolean stillPending(Path dir, String id) {
        return Files.exists(dir.resolve(id + ".pending"), LinkOption.NOFOLLOW_LINKS);
    }

    private static void ensureDirectory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_RWX));
        } catch (FileAlreadyExistsException e) {
            // Another gateway made it.
        }
        Files.setPosixFilePermissions(dir, OWNER_RWX);
    }

    private static void writePrivate(Path file, String text) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_RW));
        Files.setPosixFilePermissions(file, OWNER_RW);
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING,
                LinkOption.NOFOLLOW_LINKS);
    }
}
