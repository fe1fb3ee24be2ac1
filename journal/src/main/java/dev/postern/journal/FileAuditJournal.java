package dev.postern.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ApprovalRecord;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.JournalUnavailableException;
import dev.postern.policy.port.Rejection;
import dev.postern.policy.port.SecretMask;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The journals of DESIGN §6 as two files in one directory: {@code decisions.jsonl} for every
 * rejection and denial, {@code actions.jsonl} for every authorized action (an intent row forced to
 * disk before the executor runs, then an outcome row). Rows hold fingerprints, rule ids and bounded
 * previews (method, origin and path; host and command name) — never arguments, bodies, queries or
 * secrets. Thread-safe.
 */
public final class FileAuditJournal implements AuditJournal {
    public static final String DECISIONS = "decisions.jsonl";
    public static final String ACTIONS = "actions.jsonl";
    static final String DECISIONS_NAME = "decisions";
    static final String ACTIONS_NAME = "actions";

    private final ChainedJsonLines decisions;
    private final ChainedJsonLines actions;
    private final JsonMapper mapper;
    private final Optional<SessionFacts> session;
    private final Supplier<SecretMask> secrets;
    private final boolean redactArguments;
    private final AtomicBoolean clientWritten = new AtomicBoolean();
    private final AtomicBoolean endWritten = new AtomicBoolean();
    private final ActionRows rows;
    private final PrintStream diagnostics;

    private FileAuditJournal(ChainedJsonLines decisions, ChainedJsonLines actions, JsonMapper mapper, JournalSettings settings, ActionRows rows,
            PrintStream diagnostics) {
        this.decisions = decisions;
        this.actions = actions;
        this.mapper = mapper;
        this.session = settings.session();
        this.secrets = settings.secrets();
        this.redactArguments = settings.redactArguments();
        this.rows = java.util.Objects.requireNonNull(rows, "rows");
        this.diagnostics = diagnostics;
    }

    /** {@code row} with every string in it masked: a credential that reached a rendered field (a URL, an argument) shows as stars. */
    private ObjectNode masked(ObjectNode row) {
        SecretMask mask = secrets.get();
        maskStrings(mask, row);
        return row;
    }

    private static void maskStrings(SecretMask mask, JsonNode node) {
        if (node instanceof ObjectNode o) {
            for (var it = o.properties().iterator(); it.hasNext();) {
                var field = it.next();
                if (field.getValue().isTextual()) {
                    field.setValue(TextNode.valueOf(mask.mask(field.getValue().textValue())));
                } else {
                    maskStrings(mask, field.getValue());
                }
            }
        } else if (node instanceof ArrayNode a) {
            for (int i = 0; i < a.size(); i++) {
                if (a.get(i).isTextual()) {
                    a.set(i, TextNode.valueOf(mask.mask(a.get(i).textValue())));
                } else {
                    maskStrings(mask, a.get(i));
                }
            }
        }
    }

    /** A row that starts with its kind (if any) and the session's id (if known). */
    private ObjectNode row(String kind) {
        ObjectNode row = mapper.createObjectNode();
        if (kind != null) {
            row.put("kind", kind);
        }
        session.ifPresent(s -> row.put("session", s.id()));
        return row;
    }

    /** Whether this session's start row is written; it is, just before the session's first other row. */
    private volatile boolean started;

    /**
     * The session's start row: the process's facts, written just before the session's first other row,
     * so a connection that never got past discovery (a stateless client's {@code server/discover} probe,
     * then end of input) leaves no rows at all instead of an empty start and end pair. Not forced on its
     * own (that would put a disk flush before the first answer); the first intent's flush, or closing,
     * makes it durable.
     */
    private void sessionStarted() throws IOException {
        if (session.isEmpty() || started) {
            return;
        }
        synchronized (this) {
            if (started) {
                return;
            }
            writeStart();
            started = true;
        }
    }

    /**
     * As {@link #sessionStarted}; a start row that cannot be written is tried again before the next row,
     * and not said here: the row that follows is attempted anyway, and says it if its file is broken.
     */
    private void startIfNeeded() {
        try {
            sessionStarted();
        } catch (IOException e) {
            // said by the row that follows, if its file fails too
        }
    }

    private void writeStart() throws IOException {
        SessionFacts s = session.get();
        ObjectNode row = row("session");
        row.put("event", "start");
        row.put("pid", s.pid());
        row.put("config", s.configFile().toString());
        row.put("configSha256", s.configSha256());
        row.put("postern", s.posternVersion());
        actions.append(masked(row), false);
    }

    /**
     * The client's facts, once the era is fixed (after {@code initialize}, or the first stateless
     * request): who connected and which MCP revision it speaks. Written at most once per session.
     */
    public void sessionClient(String clientName, String clientVersion, String era, String protocolVersion) {
        if (session.isEmpty() || !clientWritten.compareAndSet(false, true)) {
            return;
        }
        startIfNeeded();
        ObjectNode row = row("session");
        row.put("event", "client");
        row.put("client", clientName);
        row.put("clientVersion", clientVersion);
        row.put("era", era);
        row.put("protocolVersion", protocolVersion);
        append(actions, ACTIONS, row);
    }

    /**
     * A config reload: from the next decision on, this session decides by the version of its config
     * file whose SHA-256 is {@code newSha256} instead of {@code oldSha256}.
     */
    public void configReloaded(String oldSha256, String newSha256) {
        startIfNeeded();
        ObjectNode row = row("session");
        row.put("event", "config-reloaded");
        row.put("oldConfigSha256", oldSha256);
        row.put("configSha256", newSha256);
        append(actions, ACTIONS, row);
    }

    /**
     * A new version of the config file refused ({@code invalid} or {@code needs-restart}), what was
     * wrong with it ({@code problem}, as check-config says it) and the SHA-256 of the version that stays
     * in force; {@code sha256} is that of the refused version, empty when it could not be read.
     */
    public void configRefused(String sha256, String reason, String problem, String inForceSha256) {
        startIfNeeded();
        ObjectNode row = row("session");
        row.put("event", "config-refused");
        row.put("configSha256", sha256);
        row.put("reason", reason);
        row.put("problem", problem);
        row.put("inForceSha256", inForceSha256);
        append(actions, ACTIONS, row);
    }

    /** The session's end row, with how it ended ({@code OK}, {@code PROTOCOL_ERROR}...); also written by close if never called. */
    public void sessionEnded(String how) {
        sessionEnded(how, java.util.OptionalLong.empty());
    }

    /**
     * As above, with telemetry on: {@code telemetryDropped} is how many records telemetry had dropped
     * by then (never sent: a full queue, a collector down, slow or refusing), as the row's
     * {@code telemetryDropped}.
     */
    public void sessionEnded(String how, java.util.OptionalLong telemetryDropped) {
        // A session that wrote nothing else (a discovery probe) ends without a row, as it started.
        if (session.isEmpty() || !started || !endWritten.compareAndSet(false, true)) {
            return;
        }
        ObjectNode row = row("session");
        row.put("event", "end");
        row.put("exit", how);
        telemetryDropped.ifPresent(n -> row.put("telemetryDropped", n));
        append(actions, ACTIONS, row);
    }

    private void append(ChainedJsonLines file, String name, ObjectNode row) {
        try {
            file.append(masked(row), false);
        } catch (IOException e) {
            diagnostics.println("postern: could not write " + name + ": " + e.getMessage());
        }
    }

    /** The size at which a journal file is rotated unless the config says otherwise (DESIGN §4). */
    public static final long DEFAULT_ROTATE_BYTES = 64L * 1024 * 1024;

    /**
     * Opens (creating if needed) both files in {@code directory}, rotating at the default size;
     * {@code rows} describes each kind's permits and outcomes.
     */
    public static FileAuditJournal open(Path directory, PrintStream diagnostics, ActionRows rows) throws IOException {
        return open(directory, DEFAULT_ROTATE_BYTES, diagnostics, rows);
    }

    /**
     * Opens (creating if needed) both journals in {@code directory}; each file is rotated once it holds
     * {@code rotateBytes}. A torn last row is cut off and the repair journaled; a damaged chain head is refused.
     */
    public static FileAuditJournal open(Path directory, long rotateBytes, PrintStream diagnostics, ActionRows rows) throws IOException {
        return open(directory, JournalSettings.rotatingAt(rotateBytes), diagnostics, rows);
    }

    /**
     * Opens both journals as {@code settings} say: with a signer, each gets a signed checkpoint row
     * every so many rows and when it is closed; with session facts, a session row starts and ends the
     * session in {@code actions.jsonl} and every row carries the session's id (DESIGN §6).
     * {@code rows} describes each kind's permits, outcomes and refused actions.
     */
    public static FileAuditJournal open(Path directory, JournalSettings settings, PrintStream diagnostics, ActionRows rows)
            throws IOException {
        secure(directory, diagnostics);
        JsonMapper mapper = JsonMapper.builder().build();
        Clock clock = Clock.systemUTC();
        ChainedJsonLines d = new ChainedJsonLines(new JournalFiles(directory, DECISIONS_NAME), mapper, clock, settings.rotateBytes(),
                settings.signer(), settings.observer());
        FileAuditJournal journal;
        try {
            journal = new FileAuditJournal(d, new ChainedJsonLines(new JournalFiles(directory, ACTIONS_NAME), mapper, clock,
                    settings.rotateBytes(), settings.signer(), settings.observer()), mapper, settings, rows, diagnostics);
        } catch (IOException | RuntimeException e) {
            d.close();
            throw e;
        }
        return journal;
    }

    /**
     * Creates {@code directory} 0700, or applies {@link PrivateFiles}' rule to it and to every file
     * Postern keeps in it: one others can write is refused, one they can only read is made private
     * and the operator told on {@code diagnostics}.
     */
    private static void secure(Path directory, PrintStream diagnostics) throws IOException {
        PrivateFiles.directory(directory).ifPresent(note -> diagnostics.println("postern: " + note));
        for (Path file : JournalFiles.posternFiles(directory)) {
            PrivateFiles.existingFile(file).ifPresent(note -> diagnostics.println("postern: " + note));
        }
    }

    /** How many times the actions file was forced to disk: concurrent intents share forces (for benchmarks). */
    public long actionForces() {
        return actions.forces();
    }

    @Override
    public void rejected(Rejection rejection) {
        startIfNeeded();
        ObjectNode row = row(null);
        row.put("stage", rejection.stage().wireName());
        row.put("reason", rejection.reasonCode());
        if (rejection.rule().isPresent()) {
            row.put("rule", rejection.rule().get());
        } else {
            row.putNull("rule");
        }
        rejection.action().ifPresent(action -> rows.denial(action, row, redactArguments));
        // The tool the client named (and for a call refused before it was bound, the pointer that failed), never a value.
        rejection.tool().ifPresent(tool -> row.put("tool", tool));
        rejection.pointer().ifPresent(pointer -> row.put("pointer", pointer));
        row.put("frame", rejection.frameSha256());
        try {
            decisions.append(masked(row), false);
        } catch (IOException e) {
            diagnostics.println("postern: could not write " + DECISIONS + ": " + e.getMessage());
        }
    }

    /** A decisions row of stage {@code upstream}: the server, the reason, the line's SHA-256 and length, never its content. */
    @Override
    public void dropped(String server, String reason, String sha256, long bytes) {
        startIfNeeded();
        ObjectNode row = row(null);
        row.put("stage", dev.postern.policy.port.Stage.UPSTREAM.wireName());
        row.put("reason", reason);
        row.putNull("rule");
        row.put("server", server);
        row.put("frame", sha256);
        row.put("bytes", bytes);
        try {
            decisions.append(masked(row), false);
        } catch (IOException e) {
            diagnostics.println("postern: could not write " + DECISIONS + ": " + e.getMessage());
        }
    }

    @Override
    public void approval(ApprovalRecord record) {
        startIfNeeded();
        ObjectNode row = mapper.createObjectNode();
        row.put("stage", "approval");
        row.put("event", record.event().name().toLowerCase(java.util.Locale.ROOT));
        row.put("rule", record.rule());
        row.put("digest", record.actionDigest());
        row.put("channel", record.channel().name().toLowerCase(java.util.Locale.ROOT));
        record.result().ifPresent(r -> row.put("result", r));
        record.detail().ifPresent(d -> row.put("detail", d));
        row.put("frame", record.frameSha256());
        try {
            decisions.append(row, false);
        } catch (IOException e) {
            diagnostics.println("postern: could not write " + DECISIONS + ": " + e.getMessage());
        }
    }

    @Override
    public long intent(AuthorizedAction permit, String frameSha256, Optional<String> tool) throws JournalUnavailableException {
        startIfNeeded();
        ObjectNode row = row("intent");
        row.put("rule", permit.rule());
        rows.intent(permit, row, redactArguments);
        // The tool the client called it by: the kind's own, or a typed tool standing for one of its operations.
        tool.ifPresent(name -> row.put("tool", name));
        row.put("frame", frameSha256);
        try {
            return actions.append(masked(row), true);
        } catch (IOException e) {
            throw new JournalUnavailableException("cannot write " + actions.path() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void outcome(long intentSeq, Outcome outcome) {
        ObjectNode row = row("outcome");
        row.put("intent", intentSeq);
        rows.outcome(outcome, row);
        try {
            actions.append(masked(row), false);
        } catch (IOException e) {
            diagnostics.println("postern: could not write " + ACTIONS + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        sessionEnded("closed");
        for (ChainedJsonLines file : new ChainedJsonLines[] {decisions, actions}) {
            try {
                file.close();
            } catch (IOException e) {
                diagnostics.println("postern: could not close " + file.path() + ": " + e.getMessage());
            }
        }
    }
}
