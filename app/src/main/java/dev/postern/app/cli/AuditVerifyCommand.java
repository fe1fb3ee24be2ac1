package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.app.journal.ChainVerifier;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/** {@code postern audit verify DIR}: checks both journals' hash chains and names the first broken row. */
final class AuditVerifyCommand implements Command {
    /** Interrupted actions listed one per line; the rest are counted. */
    private static final int MAX_LISTED = 20;

    @Override
    public String name() {
        return "audit";
    }

    @Override
    public String summary() {
        return "audit verify DIR             verify both journals' hash chains";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern audit verify DIR",
                "",
                "Verifies the hash chains of DIR's two journals, decisions and actions. Each journal is",
                "its rotated files (NAME.000001.jsonl, NAME.000002.jsonl, ...) and then NAME.jsonl, one",
                "chain running across them: every row one strict JSON object ending in a line feed, seq",
                "counting from 1 across the files, and prev the SHA-256 of the previous row's exact bytes",
                "(64 zeros for the very first row). Prints each journal's row count, files and head hash;",
                "on a broken chain, names the file and its first broken row.",
                "",
                "Also lists interrupted actions: intent rows that no outcome row names (the gateway was",
                "killed, or the action is still running). They are not tampering and do not fail the check.",
                "",
                "A chain cannot show that rows were cut from its end or that its last row changed:",
                "keep the head hashes printed here somewhere else and compare them later.",
                "",
                "Exit status 0 when both chains are intact, 6 when one is broken or DIR holds no journal",
                "(\"no journal here\"), 1 on a usage error.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        Path dir;
        try {
            List<String> words = Options.parse(args, Set.of()).positional();
            if (words.isEmpty() || !words.get(0).equals("verify")) {
                throw new Options.UsageException(words.isEmpty() ? "missing subcommand 'verify'" : "unknown subcommand '" + words.get(0) + "'");
            }
            if (words.size() != 2) {
                throw new Options.UsageException(words.size() < 2 ? "missing journal directory" : "unexpected argument " + words.get(2));
            }
            dir = Path.of(words.get(1)).toAbsolutePath().normalize();
            if (!Files.isDirectory(dir)) {
                throw new Options.UsageException("no journal directory at " + dir);
            }
        } catch (Options.UsageException e) {
            io.stderr().println("postern audit: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        ChainVerifier.Result result = Gateway.chainVerifier().verify(dir);
        PrintStream out = io.report();
        if (result.noJournal()) {
            out.println("no journal here: " + dir + " holds no decisions.jsonl or actions.jsonl");
            io.stderr().println("postern audit verify: no journal here: " + dir);
            return ExitStatus.CHECK_FAILED;
        }
        for (ChainVerifier.FileResult f : result.files()) {
            if (f.intact()) {
                out.println(f.file() + ": " + f.rows() + (f.rows() == 1 ? " row" : " rows")
                        + (f.files().size() > 1 ? " in " + f.files().size() + " files (" + String.join(", ", f.files()) + ")" : "")
                        + ", chain intact, head sha256 " + f.headSha256());
                if (!f.interrupted().isEmpty()) {
                    out.println(f.file() + ": " + f.interrupted().size() + " interrupted "
                            + (f.interrupted().size() == 1 ? "action" : "actions")
                            + " (an intent row with no outcome: the gateway stopped, or the action still runs; not tampering):");
                    f.interrupted().stream().limit(MAX_LISTED).forEach(i ->
                            out.println("  seq " + i.seq() + " (" + i.file() + " row " + i.row() + ")"));
                    if (f.interrupted().size() > MAX_LISTED) {
                        out.println("  ... and " + (f.interrupted().size() - MAX_LISTED) + " more");
                    }
                }
            } else {
                ChainVerifier.Break b = f.broken().get();
                out.println(b.file() + ": BROKEN: " + b.reason());
                io.stderr().println("postern audit verify: " + dir.resolve(b.file()) + ": "
                        + (b.row() == 0 ? b.reason() : "first broken row " + b.row()));
            }
        }
        out.println("journal " + dir + (result.intact() ? ": both chains intact" : ": BROKEN"));
        return result.intact() ? ExitStatus.OK : ExitStatus.CHECK_FAILED;
    }
}
