package dev.postern.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.app.ExitStatus;
import dev.postern.journal.JournalReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code postern audit show DIR}: both journals of a directory (every rotated file, rows of any number
 * of gateways) as one time-ordered list: each intent joined with its outcome by the intent's seq, an
 * intent with none marked interrupted, denials and rejections interleaved by time. A table by default,
 * JSON lines with {@code --json}; {@code --follow} goes on printing rows as they are written, across
 * rotation, until interrupted. Reads only; checks no chain ({@code audit verify} does).
 */
final class AuditShowCommand {
    static final String HELP = String.join("\n",
            "usage: postern audit show DIR [--since T] [--until T] [--tool NAME] [--target NAME] [--denied] [--follow] [--json]",
            "       postern audit show --config FILE [options]   (DIR is the config's journal.directory)",
            "",
            "Shows what the gateways that journal into DIR did: every action (its intent joined with",
            "its outcome), every denial and rejection, session and repair rows, in time order, across",
            "all rotated files and the rows of any number of gateways. Columns: time (UTC), session,",
            "tool, target or host, result, and what was done or refused. An intent without an outcome",
            "is shown as 'interrupted': the gateway stopped mid-call, or the call still runs.",
            "",
            "--since T, --until T   only rows at or after T, before T. T is an ISO-8601 instant",
            "                       (2026-12-01T09:30:00Z), a date (2026-12-01, midnight UTC), or a time",
            "                       ago: 90s, 30m, 24h, 7d.",
            "--tool NAME            only actions and denials of this tool (http_request, ssh_exec, ...)",
            "--target NAME          only actions and denials of this HTTP target or SSH host",
            "--denied               only the decisions journal: denials and rejections",
            "--follow               keep printing new rows as they are written (across rotation) until",
            "                       interrupted (Ctrl-C); an action is printed as 'running' when its intent",
            "                       is written, and again with its result when its outcome is",
            "--config FILE          take DIR from the config's journal.directory (so does the environment",
            "                       variable POSTERN_CONFIG when neither DIR nor --config is given)",
            "--json                 one JSON object per line: {type, time, seq, file, status, intent,",
            "                       outcome} for an action, {type, time, seq, file, row} otherwise",
            "",
            "The chains are not checked here; run 'postern audit verify DIR' for that.",
            "",
            "Exit status 0 when the journals were read, 6 when DIR holds no journal or does not exist",
            "(--follow waits for the files of a directory that exists, not for the directory), 1 on a",
            "usage error (DIR a file, not a directory), 4 when the config given instead is invalid.");

    private static final Pattern AGO = Pattern.compile("([0-9]{1,9})([smhd])");
    private static final int BLOCK = 4096;

    private final Clock clock;
    private final BooleanSupplier stop;
    private final Duration pollEvery;

    AuditShowCommand() {
        this(Clock.systemUTC(), () -> false, Duration.ofMillis(250));
    }

    /** For tests: the clock relative times count back from, when {@code --follow} stops, and how often it looks. */
    AuditShowCommand(Clock clock, BooleanSupplier stop, Duration pollEvery) {
        this.clock = clock;
        this.stop = stop;
        this.pollEvery = pollEvery;
    }

    ExitStatus run(List<String> args, Io io) {
        Path dir;
        Optional<String> absent;
        AuditEvents.Filter filter;
        boolean follow;
        boolean json;
        try {
            Options o = Options.parse(args, Set.of("--since", "--until", "--tool", "--target", "--config"),
                    Set.of("--denied", "--follow", "--json"));
            List<String> words = o.positional();
            if (words.size() > 1) {
                throw new Options.UsageException("unexpected argument " + words.get(1));
            }
            Optional<Path> named = JournalDirectoryArgument.of(words.stream().findFirst(), o, System.getenv(), io);
            if (named.isEmpty()) {
                return ExitStatus.CONFIG_ERROR;
            }
            dir = named.get();
            absent = JournalDirectoryArgument.whyNoJournal(dir);
            // With a config, an HTTP denial (its row stores the URL's host) is found by its target's name too.
            java.util.Map<String, java.util.Set<String>> targetHosts = java.util.Map.of();
            if (words.isEmpty() && o.get("--target").isPresent()) {
                Optional<dev.postern.app.config.GatewayConfig> config = ConfigArgument.load(ConfigArgument.file(o, System.getenv()), io);
                if (config.isEmpty()) {
                    return ExitStatus.CONFIG_ERROR;
                }
                targetHosts = targetHosts(config.get());
            }
            filter = new AuditEvents.Filter(time(o, "--since"), time(o, "--until"), o.get("--tool"), o.get("--target"), o.has("--denied"),
                    targetHosts);
            follow = o.has("--follow");
            json = o.has("--json");
        } catch (Options.UsageException e) {
            io.stderr().println("postern audit show: " + e.getMessage() + "\n\n" + HELP);
            return ExitStatus.USAGE;
        }
        if (absent.isPresent()) {
            io.stderr().println("postern audit show: no journal here: " + absent.get());
            return ExitStatus.CHECK_FAILED;
        }
        if (!follow && !Files.exists(dir.resolve("actions.jsonl")) && !Files.exists(dir.resolve("decisions.jsonl"))
                && noSegments(dir)) {
            io.stderr().println("postern audit show: no journal here: " + dir + " holds no decisions.jsonl or actions.jsonl");
            return ExitStatus.CHECK_FAILED;
        }
        PrintStream out = io.report();
        try (JournalReader actions = JournalReader.actions(dir); JournalReader decisions = JournalReader.decisions(dir)) {
            Show show = new Show(filter, json, out);
            show.backlog(dir, actions, decisions, follow);
            if (follow) {
                show.follow(actions, decisions);
            }
            long unreadable = actions.unreadable() + decisions.unreadable();
            if (unreadable > 0) {
                io.stderr().println("postern audit show: " + unreadable + " rows were not journal rows and were skipped;"
                        + " run 'postern audit verify " + dir + "'");
            }
        } catch (IOException e) {
            io.stderr().println("postern audit show: cannot read " + dir + ": " + e.getMessage());
            return ExitStatus.CHECK_FAILED;
        }
        return ExitStatus.OK;
    }

    private static boolean noSegments(Path dir) {
        try (var files = Files.list(dir)) {
            return files.noneMatch(p -> p.getFileName().toString().matches("(actions|decisions)\\.[0-9]{6,18}\\.jsonl"));
        } catch (IOException e) {
            return true;
        }
    }

    /** One run's printing: the filter, the format, and (while following) the actions still running. */
    private final class Show {
        private final AuditEvents.Filter filter;
        private final boolean json;
        private final PrintStream out;
        private final Map<Long, AuditEvents.Event> running = new LinkedHashMap<>();
        private Instant lastActions = Instant.EPOCH;
        private Instant lastDecisions = Instant.EPOCH;
        private boolean headerDone;

        Show(AuditEvents.Filter filter, boolean json, PrintStream out) {
            this.filter = filter;
            this.json = json;
            this.out = out;
        }

        /**
         * Everything on disk now: a first pass over the actions journal finds every outcome (by its
         * intent's seq) and where the journal ends; a second pass merges both journals by time up to there.
         */
        void backlog(Path dir, JournalReader actions, JournalReader decisions, boolean follow) throws IOException {
            Map<Long, JsonNode> outcomes = new HashMap<>();
            long end;
            try (JournalReader scan = JournalReader.actions(dir)) {
                List<JournalReader.Entry> some;
                while (!(some = scan.poll(BLOCK, Long.MAX_VALUE)).isEmpty()) {
                    for (JournalReader.Entry e : some) {
                        JsonNode row = e.row();
                        if ("outcome".equals(AuditEvents.text(row, "kind").orElse("")) && row.path("intent").canConvertToLong()
                                && filter.since().map(s -> !AuditEvents.time(row, Instant.MAX).isBefore(s)).orElse(true)) {
                            outcomes.put(row.get("intent").asLong(), row);
                        }
                    }
                }
                end = scan.nextSeq();
            }
            AuditEvents.Status open = follow ? AuditEvents.Status.RUNNING : AuditEvents.Status.INTERRUPTED;
            ArrayDeque<JournalReader.Entry> a = new ArrayDeque<>();
            ArrayDeque<JournalReader.Entry> d = new ArrayDeque<>();
            header();
            while (true) {
                if (a.isEmpty()) {
                    a.addAll(actions.poll(BLOCK, end));
                }
                if (d.isEmpty()) {
                    d.addAll(decisions.poll(BLOCK, Long.MAX_VALUE));
                }
                if (a.isEmpty() && d.isEmpty()) {
                    return;
                }
                boolean takeAction = d.isEmpty() || !a.isEmpty()
                        && !AuditEvents.time(a.peek().row(), lastActions).isAfter(AuditEvents.time(d.peek().row(), lastDecisions));
                if (takeAction) {
                    JournalReader.Entry e = a.poll();
                    lastActions = AuditEvents.time(e.row(), lastActions);
                    AuditEvents.fromActions(e, lastActions, Optional.ofNullable(outcomes.get(e.seq())), open).ifPresent(this::print);
                } else {
                    JournalReader.Entry e = d.poll();
                    lastDecisions = AuditEvents.time(e.row(), lastDecisions);
                    AuditEvents.fromDecisions(e, lastDecisions).ifPresent(this::print);
                }
            }
        }

        /** Prints rows as they are written until stopped or the output breaks; a running action is printed again when it ends. */
        void follow(JournalReader actions, JournalReader decisions) throws IOException {
            while (!stop.getAsBoolean() && !out.checkError()) {
                boolean any = false;
                for (JournalReader.Entry e : decisions.poll(BLOCK, Long.MAX_VALUE)) {
                    any = true;
                    lastDecisions = AuditEvents.time(e.row(), lastDecisions);
                    AuditEvents.fromDecisions(e, lastDecisions).ifPresent(this::print);
                }
                for (JournalReader.Entry e : actions.poll(BLOCK, Long.MAX_VALUE)) {
                    any = true;
                    lastActions = AuditEvents.time(e.row(), lastActions);
                    JsonNode row = e.row();
                    if ("outcome".equals(AuditEvents.text(row, "kind").orElse("")) && row.path("intent").canConvertToLong()) {
                        AuditEvents.Event started = running.remove(row.get("intent").asLong());
                        if (started != null) {
                            print(new AuditEvents.Event(started.time(), started.type(), started.entry(), Optional.of(row), AuditEvents.Status.DONE));
                        }
                    } else {
                        AuditEvents.fromActions(e, lastActions, Optional.empty(), AuditEvents.Status.RUNNING).ifPresent(this::print);
                    }
                }
                if (!any) {
                    try {
                        Thread.sleep(pollEvery.toMillis());
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }

        private void header() {
            if (!json && !headerDone) {
                out.println(AuditEvents.HEADER);
                headerDone = true;
            }
        }

        private void print(AuditEvents.Event e) {
            if (!filter.selects(e)) {
                return;
            }
            if (e.status() == AuditEvents.Status.RUNNING) {
                running.put(e.entry().seq(), e);
            }
            out.println(json ? AuditEvents.jsonLine(e) : AuditEvents.tableLine(e));
        }
    }

    /** The instant option {@code name} names: ISO-8601 instant or offset date-time, a date (midnight UTC), or a time ago. */
    private Optional<Instant> time(Options o, String name) throws Options.UsageException {
        Optional<String> value = o.get(name);
        if (value.isEmpty()) {
            return Optional.empty();
        }
        String v = value.get();
        Matcher ago = AGO.matcher(v);
        if (ago.matches()) {
            long n = Long.parseLong(ago.group(1));
            Duration d = switch (ago.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            return Optional.of(clock.instant().minus(d));
        }
        try {
            return Optional.of(OffsetDateTime.parse(v).toInstant());
        } catch (DateTimeParseException e) {
            // Not a date-time with an offset; a date?
        }
        try {
            return Optional.of(LocalDate.parse(v).atStartOfDay(ZoneOffset.UTC).toInstant());
        } catch (DateTimeParseException e) {
            throw new Options.UsageException(name + " takes an ISO-8601 instant (2026-12-01T09:30:00Z), a date (2026-12-01)"
                    + " or a time ago (90s, 30m, 24h, 7d), not " + AuditEvents.clean(v, 64));
        }
    }

    /** Each HTTP target of {@code config} by name, and the host (alone and with its port) its origin is on: what an HTTP denial row stores. */
    static java.util.Map<String, java.util.Set<String>> targetHosts(dev.postern.app.config.GatewayConfig config) {
        java.util.Map<String, java.util.Set<String>> hosts = new java.util.HashMap<>();
        for (dev.postern.policy.model.HttpTarget t : config.policy().allowances(dev.postern.policy.model.HttpTarget.class)) {
            // The row's host is the URL's authority: with its port when the URL gave one.
            java.util.Set<String> names = hosts.computeIfAbsent(t.name(), n -> new java.util.HashSet<>());
            names.add(t.origin().host());
            names.add(t.origin().host() + ":" + t.origin().port());
        }
        return hosts;
    }
}
