package dev.postern.app.journal;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.JournalUnavailableException;
import dev.postern.policy.port.Rejection;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

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
    private final ActionRows rows;
    private final PrintStream diagnostics;

    private FileAuditJournal(ChainedJsonLines decisions, ChainedJsonLines actions, JsonMapper mapper, ActionRows rows,
            PrintStream diagnostics) {
        this.decisions = decisions;
        this.actions = actions;
        this.mapper = mapper;
        this.rows = java.util.Objects.requireNonNull(rows, "rows");
        this.diagnostics = diagnostics;
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
        Files.createDirectories(directory);
        JsonMapper mapper = JsonMapper.builder().build();
        Clock clock = Clock.systemUTC();
        ChainedJsonLines d = new ChainedJsonLines(new JournalFiles(directory, DECISIONS_NAME), mapper, clock, rotateBytes);
        try {
            return new FileAuditJournal(d, new ChainedJsonLines(new JournalFiles(directory, ACTIONS_NAME), mapper, clock, rotateBytes),
                    mapper, rows, diagnostics);
        } catch (IOException | RuntimeException e) {
            d.close();
            throw e;
        }
    }

    /** How many times the actions file was forced to disk: concurrent intents share forces (for benchmarks). */
    public long actionForces() {
        return actions.forces();
    }

    @Override
    public void rejected(Rejection rejection) {
        ObjectNode row = mapper.createObjectNode();
        row.put("stage", rejection.stage().wireName());
        row.put("reason", rejection.reasonCode());
        if (rejection.rule().isPresent()) {
            row.put("rule", rejection.rule().get());
        } else {
            row.putNull("rule");
        }
        row.put("frame", rejection.frameSha256());
        try {
            decisions.append(row, false);
        } catch (IOException e) {
            diagnostics.println("postern: could not write " + DECISIONS + ": " + e.getMessage());
        }
    }

    @Override
    public long intent(AuthorizedAction permit, String frameSha256) throws JournalUnavailableException {
        ObjectNode row = mapper.createObjectNode();
        row.put("kind", "intent");
        row.put("rule", permit.rule());
        rows.intent(permit, row);
        row.put("frame", frameSha256);
        try {
            return actions.append(row, true);
        } catch (IOException e) {
            throw new JournalUnavailableException("cannot write " + actions.path() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void outcome(long intentSeq, Outcome outcome) {
        ObjectNode row = mapper.createObjectNode();
        row.put("kind", "outcome");
        row.put("intent", intentSeq);
        rows.outcome(outcome, row);
        try {
            actions.append(row, false);
        } catch (IOException e) {
            diagnostics.println("postern: could not write " + ACTIONS + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        for (ChainedJsonLines file : new ChainedJsonLines[] {decisions, actions}) {
            try {
                file.close();
            } catch (IOException e) {
                diagnostics.println("postern: could not close " + file.path() + ": " + e.getMessage());
            }
        }
    }
}
