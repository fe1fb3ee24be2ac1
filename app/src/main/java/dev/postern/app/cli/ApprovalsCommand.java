package dev.postern.app.cli;

import dev.postern.app.ApprovalFiles;
import dev.postern.app.ExitStatus;
import dev.postern.app.config.GatewayConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code postern approvals [--config FILE] [list | approve ID | deny ID]}: the pending approvals of
 * every gateway on the config's journal directory ({@link ApprovalFiles}), and a human's answer to one
 * of them by its id, an approval channel no MCP client can answer for the human. An answer is
 * written for the owning gateway to take; the command then waits (at most {@link #TAKEN_WITHIN}) until
 * that gateway has taken it.
 */
final class ApprovalsCommand implements Command {
    static final Duration TAKEN_WITHIN = Duration.ofSeconds(10);

    @Override
    public String name() {
        return "approvals";
    }

    @Override
    public String summary() {
        return "approvals [--config FILE] [list | approve ID | deny ID]\n"
                + "                               pending approvals of every gateway on the journal directory; answer one";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern approvals [--config FILE] [list]",
                "       postern approvals [--config FILE] approve ID",
                "       postern approvals [--config FILE] deny ID",
                "",
                "Lists the calls that wait for a human's approval under a confirm rule answered \"local\" or",
                "\"any\", in every gateway whose config has this journal.directory: each with its id, the",
                "gateway's pid, when it expires, the rule, the client and the exact action, as the approval",
                "page shows it. 'approve ID' runs that one action once; 'deny ID' ends its call with",
                "approval.declined. The gateway takes the answer only from a file of mode 0600 owned by",
                "its own user. Approvals of gateways that are gone, and expired ones, are not listed and",
                "cannot be answered.",
                "",
                "Exit status 0 when listed or answered, 6 when no live approval has that id (unknown,",
                "answered, expired, or its gateway is gone) or its gateway did not take the answer, 1 on a",
                "usage error, 4 when the config is invalid.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        Options o;
        String file;
        try {
            o = Options.parse(args, Set.of("--config"));
            file = ConfigArgument.file(o);
            List<String> words = o.positional();
            if (!(words.isEmpty() || words.size() == 1 && words.get(0).equals("list")
                    || words.size() == 2 && (words.get(0).equals("approve") || words.get(0).equals("deny")))) {
                throw new Options.UsageException("expected list, approve ID or deny ID");
            }
        } catch (Options.UsageException e) {
            io.stderr().println("postern approvals: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        Optional<GatewayConfig> config = ConfigArgument.load(file, io);
        if (config.isEmpty()) {
            return ExitStatus.CONFIG_ERROR;
        }
        Path dir = ApprovalFiles.directory(config.get().journalDirectory());
        PrintStream out = io.report();
        List<String> words = o.positional();
        try {
            if (words.isEmpty() || words.get(0).equals("list")) {
                return list(dir, out);
            }
            return answer(dir, words.get(1), words.get(0).equals("approve"), out, io.stderr());
        } catch (IOException e) {
            io.stderr().println("postern approvals: cannot read or write the approvals directory (" + e.getClass().getSimpleName() + ")");
            return ExitStatus.CHECK_FAILED;
        }
    }

    private static ExitStatus list(Path dir, PrintStream out) throws IOException {
        Instant now = Instant.now();
        List<ApprovalFiles.Pending> live = ApprovalFiles.list(dir).stream().filter(p -> p.live(now)).toList();
        if (live.isEmpty()) {
            out.println("no pending approvals");
            return ExitStatus.OK;
        }
        for (ApprovalFiles.Pending p : live) {
            out.println(p.id() + "  pid " + p.pid() + "  expires in " + Math.max(0, Duration.between(now, p.expiry()).toSeconds())
                    + " s  rule " + p.rule() + "  client " + p.client());
            p.action().lines().forEach(l -> out.println("    " + l));
        }
        return ExitStatus.OK;
    }

    private static ExitStatus answer(Path dir, String id, boolean approve, PrintStream out, PrintStream err) throws IOException {
        Optional<ApprovalFiles.Pending> answered = ApprovalFiles.answer(dir, id, approve);
        if (answered.isEmpty()) {
            err.println("postern approvals: no live approval has the id " + id + " (unknown, answered, expired, or its gateway is gone)");
            return ExitStatus.CHECK_FAILED;
        }
        long deadline = System.nanoTime() + TAKEN_WITHIN.toNanos();
        while (ApprovalFiles.stillPending(dir, id) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (ApprovalFiles.stillPending(dir, id)) {
            err.println("postern approvals: gateway " + answered.get().pid() + " has not taken the answer to " + id);
            return ExitStatus.CHECK_FAILED;
        }
        out.println((approve ? "approved " : "denied ") + id + " (rule " + answered.get().rule() + ", gateway pid "
                + answered.get().pid() + ")");
        return ExitStatus.OK;
    }
}
