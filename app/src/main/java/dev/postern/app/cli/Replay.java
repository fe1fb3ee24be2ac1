package dev.postern.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.app.Gateway;
import dev.postern.app.ToolCallService;
import dev.postern.app.config.GatewayConfig;
import dev.postern.journal.JournalReader;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.Decision;
import dev.postern.policy.PendingApproval;
import dev.postern.policy.action.Action;
import dev.postern.protocol.tools.EffectKinds;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * {@code audit replay}'s work: every call a journal directory holds a decision for (an intent row, a
 * policy denial, a call a rate limit held back) decided again by the real policy engine under a
 * candidate config, through the explain use case, which holds no journal and no executor. Reads the
 * journals and nothing else; never writes. Not thread-safe.
 *
 * <p>Limits, said in the report: a row written with {@code journal.redactArguments} (or before rows
 * held the asked action) cannot be replayed; a call a human refused is journaled only as a digest; the
 * schema stage is not run again (a call the candidate's tool schema would refuse is still judged by
 * its policy); rate limits are not simulated (a call held back by one counts as allowed by the policy).
 */
final class Replay {

    /** What the policy said of one call. */
    enum Verdict {
        ALLOWED("allowed"), APPROVAL("needs approval"), DENIED("denied");

        final String words;

        Verdict(String words) {
            this.words = words;
        }
    }

    /** A verdict and the rule behind it. */
    record Decided(Verdict verdict, String rule) {
        Decided {
            Objects.requireNonNull(verdict, "verdict");
            Objects.requireNonNull(rule, "rule");
        }
    }

    /** One journaled call: where its row is, when, what it asked, what it was and what it would be now. */
    record Call(String journal, long seq, String time, String tool, String shown, Decided was, Decided now, boolean rateLimited) {
        Call {
            Objects.requireNonNull(journal, "journal");
            Objects.requireNonNull(time, "time");
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(shown, "shown");
            Objects.requireNonNull(was, "was");
            Objects.requireNonNull(now, "now");
        }

        boolean changed() {
            return was.verdict() != now.verdict();
        }

        /** The same verdict under another rule (not said of a call a rate limit held back, whose permitting rule the journal lacks). */
        boolean otherRule() {
            return !changed() && !rateLimited && !was.rule().equals(now.rule());
        }
    }

    /** Every call re-decided, and the rows that held a decision but could not be replayed, counted by why. */
    record Report(List<Call> calls, Map<String, Long> notReplayed) {
        Report {
            calls = List.copyOf(calls);
            notReplayed = Map.copyOf(notReplayed);
        }

        List<Call> changed() {
            return calls.stream().filter(Call::changed).toList();
        }
    }

    static final String REDACTED = "written with journal.redactArguments (arguments kept only as digests)";
    static final String NOT_HELD = "written before journal rows held the asked action";
    static final String UNREADABLE = "whose asked action does not read back (a URL with user info, which the journal drops, or an edited row)";
    static final String REFUSED_BY_HUMAN = "refused at the approval step (the decisions journal holds only the action's digest)";

    private final EffectKinds kinds;
    private final ToolCallService engine;

    private Replay(EffectKinds kinds, ToolCallService engine) {
        this.kinds = kinds;
        this.engine = engine;
    }

    /** Replays the journals in {@code directory} under {@code candidate}. */
    static Report run(Path directory, GatewayConfig candidate) throws IOException {
        return new Replay(Gateway.kinds(), Gateway.explainer(candidate)).replay(directory);
    }

    private Report replay(Path directory) throws IOException {
        List<JournalReader.Entry> decisions;
        List<JournalReader.Entry> actions;
        try (JournalReader d = JournalReader.decisions(directory); JournalReader a = JournalReader.actions(directory)) {
            decisions = d.readAll(Long.MAX_VALUE);
            actions = a.readAll(Long.MAX_VALUE);
        }
        Map<String, Long> skipped = new LinkedHashMap<>();
        Set<String> approvedFrames = new HashSet<>();
        List<Call> calls = new ArrayList<>();
        for (JournalReader.Entry e : decisions) {
            JsonNode row = e.row();
            if ("approval".equals(text(row, "stage")) && "answered".equals(text(row, "event"))) {
                if ("approved".equals(text(row, "result"))) {
                    approvedFrames.add(text(row, "frame"));
                } else {
                    skipped.merge(REFUSED_BY_HUMAN, 1L, Long::sum);
                }
            } else if ("policy".equals(text(row, "stage")) && row.path("rule").isTextual()) {
                boolean denied = "POLICY_DENIED".equals(text(row, "reason"));
                Decided was = new Decided(denied ? Verdict.DENIED : Verdict.ALLOWED, text(row, "rule"));
                String shown = text(row, "tool") + ' ' + text(row, "refused");
                replayed(e, "decisions", was, shown, !denied, skipped).ifPresent(calls::add);
            }
        }
        for (JournalReader.Entry e : actions) {
            JsonNode row = e.row();
            if ("intent".equals(text(row, "kind"))) {
                Verdict verdict = approvedFrames.contains(text(row, "frame")) ? Verdict.APPROVAL : Verdict.ALLOWED;
                String shown = text(row, "action") + ' ' + text(row, "preview");
                replayed(e, "actions", new Decided(verdict, text(row, "rule")), shown, false, skipped).ifPresent(calls::add);
            }
        }
        calls.sort(Comparator.comparing((Call c) -> instant(c.time())).thenComparing(Call::journal).thenComparingLong(Call::seq));
        return new Report(calls, skipped);
    }

    private Optional<Call> replayed(JournalReader.Entry e, String journal, Decided was, String shown, boolean rateLimited,
            Map<String, Long> skipped) {
        JsonNode row = e.row();
        JsonNode asked = row.get(EffectKinds.ASKED);
        if (asked == null) {
            skipped.merge(row.has("argumentsSha256") ? REDACTED : NOT_HELD, 1L, Long::sum);
            return Optional.empty();
        }
        Optional<Action> action = kinds.actionOf(asked);
        if (action.isEmpty()) {
            skipped.merge(UNREADABLE, 1L, Long::sum);
            return Optional.empty();
        }
        Decided now = engine.dryRun(action.get(), new ToolCallService.DryAnswers<>() {
            @Override
            public Decided denied(Decision.Deny deny) {
                return new Decided(Verdict.DENIED, deny.rule());
            }

            @Override
            public Decided permitted(AuthorizedAction permit) {
                return new Decided(Verdict.ALLOWED, permit.rule());
            }

            @Override
            public Decided approvalRequired(PendingApproval pending) {
                return new Decided(Verdict.APPROVAL, pending.rule());
            }
        });
        return Optional.of(new Call(journal, e.seq(), text(row, "time"), asked.path("kind").asText(), shown, was, now, rateLimited));
    }

    private static String text(JsonNode row, String field) {
        JsonNode v = row.get(field);
        return v != null && v.isTextual() ? v.textValue() : "";
    }

    private static Instant instant(String time) {
        try {
            return Instant.parse(time);
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }
}
