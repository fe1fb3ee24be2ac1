package dev.postern.app.cli;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.ExitStatus;
import dev.postern.app.config.GatewayConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code postern audit replay [DIR] --config NEW [--json]}: what a candidate config would have
 * decided of every journaled call ({@link Replay}), the differences grouped by verdict and rule.
 * Executes nothing and writes nothing; routed to from {@link AuditVerifyCommand}.
 */
final class AuditReplayCommand {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** The verdict changes in the order they are printed. */
    private static final List<List<Replay.Verdict>> TRANSITIONS = List.of(
            List.of(Replay.Verdict.ALLOWED, Replay.Verdict.DENIED),
            List.of(Replay.Verdict.APPROVAL, Replay.Verdict.DENIED),
            List.of(Replay.Verdict.ALLOWED, Replay.Verdict.APPROVAL),
            List.of(Replay.Verdict.APPROVAL, Replay.Verdict.ALLOWED),
            List.of(Replay.Verdict.DENIED, Replay.Verdict.ALLOWED),
            List.of(Replay.Verdict.DENIED, Replay.Verdict.APPROVAL));

    static final String HELP = String.join("\n",
            "usage: postern audit replay [DIR] --config NEW [--json]",
            "",
            "Decides every call journaled in DIR again, under the config NEW, and prints what would",
            "change. DIR defaults to NEW's journal.directory (the usual case: NEW is an edit of the",
            "running config); NEW may also be given as --config=NEW or in POSTERN_CONFIG.",
            "",
            "Each call with a decision is replayed: an intent row (allowed, or allowed after a human's",
            "approval), a policy denial, and a call a rate limit held back (allowed by the policy; rate",
            "limits are not simulated). The real policy engine decides; nothing is sent, run or",
            "journaled, and no upstream server is started: an upstream call is judged against the",
            "tool definition it was bound to when it was made. The arguments' schema check is not run",
            "again. Differences are grouped:",
            "  allowed -> denied          by the candidate's rule",
            "  denied -> allowed          by the rule that denied it",
            "  ... -> needs approval, needs approval -> ...   by the candidate's rule",
            "then the count of unchanged calls (and of those now decided by another rule), and the",
            "rows that cannot be replayed, counted by why: written with journal.redactArguments,",
            "written before rows held the asked action, or refused by a human (journaled only as",
            "a digest). A row is never guessed at.",
            "",
            "--json   one JSON object per changed call instead of the groups: journal, seq, time,",
            "         tool, was {verdict, rule}, now {verdict, rule}",
            "",
            "Exit status 0 when no call would change, 6 when some would (or DIR holds no journal),",
            "4 when NEW is invalid, 1 on a usage error.");

    ExitStatus run(List<String> args, Io io) {
        Options o;
        String file;
        Optional<Path> named;
        try {
            o = Options.parse(args, Set.of("--config"), Set.of("--json"));
            if (o.positional().size() > 1) {
                throw new Options.UsageException("unexpected argument " + o.positional().get(1));
            }
            file = ConfigArgument.file(o);
            named = o.positional().isEmpty() ? Optional.empty() : Optional.of(JournalDirectoryArgument.parse(o.positional().get(0)));
        } catch (Options.UsageException e) {
            io.stderr().println("postern audit replay: " + e.getMessage() + "\n\n" + HELP);
            return ExitStatus.USAGE;
        }
        Optional<GatewayConfig> candidate = ConfigArgument.load(file, io);
        if (candidate.isEmpty()) {
            return ExitStatus.CONFIG_ERROR;
        }
        Path dir = named.orElse(candidate.get().journalDirectory());
        PrintStream out = io.report();
        Optional<String> absent;
        try {
            absent = JournalDirectoryArgument.whyNoJournal(dir);
        } catch (Options.UsageException e) {
            io.stderr().println("postern audit replay: " + e.getMessage() + "\n\n" + HELP);
            return ExitStatus.USAGE;
        }
        if (absent.isPresent()) {
            out.println("no journal here: " + absent.get());
            io.stderr().println("postern audit replay: no journal here: " + absent.get());
            return ExitStatus.CHECK_FAILED;
        }
        Replay.Report report;
        try {
            report = Replay.run(dir, candidate.get());
        } catch (IOException e) {
            io.stderr().println("postern audit replay: cannot read the journal in " + dir + ": " + e.getMessage());
            return ExitStatus.CHECK_FAILED;
        }
        if (o.has("--json")) {
            report.changed().forEach(c -> out.println(json(c)));
        } else {
            print(dir, candidate.get(), report, out);
        }
        return report.changed().isEmpty() ? ExitStatus.OK : ExitStatus.CHECK_FAILED;
    }

    private static void print(Path dir, GatewayConfig candidate, Replay.Report report, PrintStream out) {
        List<Replay.Call> changed = report.changed();
        out.println("replay of " + dir + " under " + candidate.file() + ": " + count(report.calls().size(), "call") + " decided again, "
                + (changed.isEmpty() ? "none would change" : changed.size() + " would change"));
        for (List<Replay.Verdict> t : TRANSITIONS) {
            Map<String, List<Replay.Call>> byRule = new LinkedHashMap<>();
            for (Replay.Call c : changed) {
                if (c.was().verdict() == t.get(0) && c.now().verdict() == t.get(1)) {
                    String rule = t.get(0) == Replay.Verdict.DENIED ? c.was().rule() : c.now().rule();
                    byRule.computeIfAbsent(rule, r -> new ArrayList<>()).add(c);
                }
            }
            if (byRule.isEmpty()) {
                continue;
            }
            long n = byRule.values().stream().mapToLong(List::size).sum();
            out.println(t.get(0).words + " -> " + t.get(1).words + " (" + n + "):");
            byRule.forEach((rule, calls) -> {
                out.println("  " + (t.get(0) == Replay.Verdict.DENIED ? "was denied by rule " : "by rule ") + rule + " ("
                        + calls.size() + "):");
                calls.forEach(c -> out.println("    " + c.journal() + " seq " + c.seq() + "  " + c.time() + "  " + c.shown()
                        + "  (" + (t.get(0) == Replay.Verdict.DENIED ? "now " + c.now().rule() : "was " + c.was().rule()) + ")"));
            });
        }
        long unchanged = report.calls().size() - changed.size();
        long other = report.calls().stream().filter(Replay.Call::otherRule).count();
        out.println("unchanged: " + unchanged + (other == 0 ? "" : " (" + other + " of them decided by another rule)"));
        report.notReplayed().forEach((why, n) -> out.println("not replayed: " + count(n, "row") + " " + why));
    }

    private static String json(Replay.Call c) {
        ObjectNode n = JSON.createObjectNode();
        n.put("journal", c.journal());
        n.put("seq", c.seq());
        n.put("time", c.time());
        n.put("tool", c.tool());
        n.putObject("was").put("verdict", c.was().verdict().name().toLowerCase(java.util.Locale.ROOT)).put("rule", c.was().rule());
        n.putObject("now").put("verdict", c.now().verdict().name().toLowerCase(java.util.Locale.ROOT)).put("rule", c.now().rule());
        return n.toString();
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
