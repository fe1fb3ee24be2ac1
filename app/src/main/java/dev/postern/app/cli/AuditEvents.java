package dev.postern.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.journal.JournalReader;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@code audit show} prints, one event per journal fact: an action (an intent joined with its
 * outcome, or marked interrupted or running), a decision (a denial or rejection), a session row or a
 * repair row; the filters that select them; and their two renderings, a table line and a JSON line.
 * Every string from a journal is printed with control characters replaced, so a row cannot drive
 * the terminal. Immutable values and pure functions.
 */
final class AuditEvents {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final DateTimeFormatter TABLE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
    /** The RESULT column's width: the longest failure code ({@code CREDENTIAL_UNAVAILABLE}, 22) and its prefix fit whole. */
    static final int RESULT_WIDTH = 26;
    private static final String TABLE_FORMAT = "%-19s  %-8s  %-12s  %-16s  %-" + RESULT_WIDTH + "s  %s";

    static final String HEADER = String.format(TABLE_FORMAT, "TIME (UTC)", "SESSION", "TOOL", "TARGET", "RESULT", "WHAT");

    private AuditEvents() {
    }

    /** How an action stands: its outcome was read, or there is none (interrupted), or none yet while following (running). */
    enum Status {
        DONE, INTERRUPTED, RUNNING;

        String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One line of output: the row it starts from, its journal, the outcome joined to it (actions only) and its status. */
    record Event(Instant time, String type, JournalReader.Entry entry, Optional<JsonNode> outcome, Status status) {
        Event {
            Objects.requireNonNull(time, "time");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(entry, "entry");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(status, "status");
        }

        JsonNode row() {
            return entry.row();
        }

        String tool() {
            return type.equals("action") ? text(row(), "tool").orElse(text(row(), "action").orElse("-")) : text(row(), "tool").orElse("-");
        }

        String target() {
            return text(row(), "target").or(() -> text(row(), "host")).orElse("-");
        }
    }

    /**
     * What to show: a time window (either end open), a tool, a target, only denials. A denial row that
     * names no target but a host (an HTTP denial stores the URL's host) is of target {@code T} when
     * {@code targetHosts} (from the config, when one was given) says {@code T} is on that host.
     */
    record Filter(Optional<Instant> since, Optional<Instant> until, Optional<String> tool, Optional<String> target, boolean deniedOnly,
                  java.util.Map<String, java.util.Set<String>> targetHosts) {
        Filter {
            Objects.requireNonNull(since, "since");
            Objects.requireNonNull(until, "until");
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(target, "target");
            targetHosts = java.util.Map.copyOf(Objects.requireNonNull(targetHosts, "targetHosts"));
        }

        /** A filter that knows no config: a target matches a row's {@code target}, or its {@code host}. */
        Filter(Optional<Instant> since, Optional<Instant> until, Optional<String> tool, Optional<String> target, boolean deniedOnly) {
            this(since, until, tool, target, deniedOnly, java.util.Map.of());
        }

        private boolean ofTarget(Event e, String t) {
            if (t.equals(e.target())) {
                return true;
            }
            return text(e.row(), "target").isEmpty() && text(e.row(), "host")
                    .map(h -> targetHosts.getOrDefault(t, java.util.Set.of()).contains(h)).orElse(false);
        }

        boolean inWindow(Instant t) {
            return since.map(s -> !t.isBefore(s)).orElse(true) && until.map(u -> t.isBefore(u)).orElse(true);
        }

        boolean selects(Event e) {
            if (!inWindow(e.time())) {
                return false;
            }
            boolean narrowed = tool.isPresent() || target.isPresent() || deniedOnly;
            if (!e.type().equals("action") && !e.type().equals("decision")) {
                return !narrowed;
            }
            if (deniedOnly && (!e.type().equals("decision")
                    || "approval".equals(text(e.row(), "stage").orElse("")) && !isApprovalRefusal(e.row()))) {
                return false;
            }
            return tool.map(t -> t.equals(e.tool())).orElse(true) && target.map(t -> ofTarget(e, t)).orElse(true);
        }
    }

    /** Whether an approval row is an answer that refused the action (denied, expired, invalid): a denial. */
    static boolean isApprovalRefusal(JsonNode approvalRow) {
        return text(approvalRow, "event").orElse("").equals("answered") && !text(approvalRow, "result").orElse("").equals("approved");
    }

    /** The time a row carries; {@code fallback} when it has none that parses. */
    static Instant time(JsonNode row, Instant fallback) {
        try {
            return text(row, "time").map(Instant::parse).orElse(fallback);
        } catch (DateTimeParseException e) {
            return fallback;
        }
    }

    /** The event a row of the actions journal starts, if it starts one (outcomes and checkpoints do not). */
    static Optional<Event> fromActions(JournalReader.Entry entry, Instant time, Optional<JsonNode> outcome, Status ifOpen) {
        String kind = text(entry.row(), "kind").orElse("");
        return switch (kind) {
            case "intent" -> Optional.of(new Event(time, "action", entry, outcome, outcome.isPresent() ? Status.DONE : ifOpen));
            case "outcome", "checkpoint" -> Optional.empty();
            case "" -> Optional.of(new Event(time, "unknown", entry, Optional.empty(), Status.DONE));
            default -> Optional.of(new Event(time, kind, entry, Optional.empty(), Status.DONE));
        };
    }

    /** The event a row of the decisions journal starts (all but checkpoints). */
    static Optional<Event> fromDecisions(JournalReader.Entry entry, Instant time) {
        String kind = text(entry.row(), "kind").orElse("");
        if (kind.equals("checkpoint")) {
            return Optional.empty();
        }
        return Optional.of(new Event(time, kind.isEmpty() ? "decision" : kind, entry, Optional.empty(), Status.DONE));
    }

    /** The event as one table line. */
    static String tableLine(Event e) {
        return String.format(TABLE_FORMAT, TABLE_TIME.format(e.time()), cell(text(e.row(), "session").orElse("-"), 8),
                cell(e.tool(), 12), cell(e.target(), 16), cell(result(e), RESULT_WIDTH), clean(what(e), 400));
    }

    /** The event as one JSON object: its type, time, seq and file, and the rows (without their chain hash). */
    static String jsonLine(Event e) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", e.type());
        o.put("time", e.time().toString());
        o.put("seq", e.entry().seq());
        o.put("file", e.entry().file());
        if (e.type().equals("action")) {
            o.put("status", e.status().wire());
            o.set("intent", withoutChain(e.row()));
            o.set("outcome", e.outcome().map(AuditEvents::withoutChain).orElse(null));
        } else {
            o.set("row", withoutChain(e.row()));
        }
        return o.toString();
    }

    private static JsonNode withoutChain(JsonNode row) {
        ObjectNode copy = row.deepCopy();
        copy.remove("prev");
        return copy;
    }

    private static String result(Event e) {
        JsonNode r = e.row();
        switch (e.type()) {
            case "action": {
                if (e.outcome().isEmpty()) {
                    return e.status().wire();
                }
                JsonNode o = e.outcome().get();
                String result = text(o, "result").orElse("?");
                if (!result.equals("ok")) {
                    return result;
                }
                StringBuilder b = new StringBuilder("ok");
                number(o, "status").ifPresent(s -> b.append(' ').append(s));
                number(o, "exitStatus").ifPresent(s -> b.append(" exit ").append(s));
                text(o, "exitSignal").ifPresent(s -> b.append(" signal ").append(s));
                return b.toString();
            }
            case "decision": {
                String stage = text(r, "stage").orElse("?");
                String reason = text(r, "reason").orElse("?");
                if (stage.equals("approval")) {
                    // A step of a human approval, not a rejection: asked, or answered with its result.
                    if (!isApprovalRefusal(r)) {
                        return text(r, "event").orElse("?").equals("asked") ? "approval asked" : "approved";
                    }
                    return "denied " + text(r, "result").orElse("?");
                }
                if (stage.equals("policy")) {
                    return reason.equals("POLICY_DENIED") ? "denied" : "denied " + reason;
                }
                return "rejected " + stage;
            }
            case "session":
                return "session " + text(r, "event").orElse("");
            default:
                return e.type();
        }
    }

    private static String what(Event e) {
        JsonNode r = e.row();
        switch (e.type()) {
            case "action": {
                String done = text(r, "preview").orElse(text(r, "rule").orElse(""));
                // A failure's detail is the operator's: the address, the server's words, the exception chain.
                return e.outcome().flatMap(o -> text(o, "detail")).map(d -> done + " — " + d).orElse(done);
            }
            case "decision": {
                StringBuilder b = new StringBuilder();
                if ("approval".equals(text(r, "stage").orElse(""))) {
                    b.append("rule ").append(text(r, "rule").orElse("?")).append(" via ").append(text(r, "channel").orElse("?"))
                            .append(", action ").append(text(r, "digest").orElse("?"));
                    text(r, "detail").ifPresent(d -> b.append(": ").append(d));
                    return b.toString();
                }
                text(r, "refused").ifPresent(b::append);
                text(r, "rule").ifPresent(rule -> b.append(b.length() > 0 ? "; " : "").append("rule ").append(rule));
                if (!"policy".equals(text(r, "stage").orElse(""))) {
                    text(r, "reason").ifPresent(reason -> b.append(b.length() > 0 ? "; " : "").append(reason));
                    text(r, "pointer").ifPresent(pointer -> b.append(" at ").append(pointer.isEmpty() ? "the arguments" : pointer));
                }
                text(r, "detail").ifPresent(d -> b.append(b.length() > 0 ? ": " : "").append(d));
                return b.toString();
            }
            case "repair":
                return text(r, "reason").orElse("") + " (" + number(r, "removedBytes").orElse("?") + " bytes)";
            case "session":
                return switch (text(r, "event").orElse("")) {
                    case "start" -> "pid " + number(r, "pid").orElse("?") + ", postern " + text(r, "postern").orElse("?") + ", config "
                            + text(r, "config").orElse("?") + " (sha256 " + text(r, "configSha256").map(h -> h.substring(0, Math.min(12, h.length())))
                            .orElse("?") + "…)";
                    case "client" -> "client " + text(r, "client").orElse("?") + ' ' + text(r, "clientVersion").orElse("?") + ", "
                            + text(r, "era").orElse("?") + " era, MCP " + text(r, "protocolVersion").orElse("?");
                    case "end" -> "exit " + text(r, "exit").orElse("?");
                    case "config-reloaded" -> "config reloaded: sha256 " + prefix(text(r, "oldConfigSha256")) + "… -> "
                            + prefix(text(r, "configSha256")) + "…";
                    case "config-refused" -> "config refused (" + text(r, "reason").orElse("?") + "), sha256 "
                            + prefix(text(r, "configSha256")) + "…: " + text(r, "problem").orElse("?") + "; in force: "
                            + prefix(text(r, "inForceSha256")) + "…";
                    default -> withoutChain(r).toString();
                };
            default: {
                ObjectNode rest = r.deepCopy();
                rest.remove(java.util.List.of("seq", "time", "prev", "kind", "session"));
                return rest.toString();
            }
        }
    }

    /** The first 12 hex digits of a SHA-256, as the session rows show it. */
    private static String prefix(Optional<String> sha256) {
        return sha256.map(h -> h.substring(0, Math.min(12, h.length()))).orElse("?");
    }

    static Optional<String> text(JsonNode row, String field) {
        JsonNode n = row.get(field);
        return n != null && n.isTextual() ? Optional.of(n.textValue()) : Optional.empty();
    }

    private static Optional<String> number(JsonNode row, String field) {
        JsonNode n = row.get(field);
        return n != null && n.isIntegralNumber() ? Optional.of(n.asText()) : Optional.empty();
    }

    /** A fixed-width cell: cleaned, and cut with an ellipsis when longer than {@code width}. */
    private static String cell(String s, int width) {
        String c = clean(s, 400);
        return c.length() <= width ? c : c.substring(0, width - 1) + "…";
    }

    /** {@code s} with every control character (C0, DEL, C1) and line or paragraph separator shown as '?', at most {@code max} characters. */
    static String clean(String s, int max) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), max + 1));
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029' || Character.getType(c) == Character.FORMAT ? '?' : c);
        }
        if (s.length() > max) {
            b.append('…');
        }
        return b.toString();
    }
}
