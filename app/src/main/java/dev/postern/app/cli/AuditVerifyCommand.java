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
                "Verifies the hash chains of DIR/decisions.jsonl and DIR/actions.jsonl: every row one",
                "strict JSON object ending in a line feed, seq counting from 1, and prev the SHA-256 of",
                "the previous row's exact bytes (64 zeros for the first row). Prints each file's row",
                "count and head hash; on a broken chain, names the file and the first broken row.",
                "",
                "A chain cannot show that rows were cut from its end or that its last row changed:",
                "keep the head hashes printed here somewhere else and compare them later.",
                "",
                "Exit status 0 when both chains are intact, 6 when one is broken, 1 on a usage error.");
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
        for (ChainVerifier.FileResult f : result.files()) {
            if (f.intact()) {
                out.println(f.file() + ": " + f.rows() + (f.rows() == 1 ? " row" : " rows") + ", chain intact, head sha256 " + f.headSha256());
            } else {
                ChainVerifier.Break b = f.broken().get();
                out.println(f.file() + ": BROKEN: " + b.reason());
                io.stderr().println("postern audit verify: " + dir.resolve(f.file()) + ": "
                        + (b.row() == 0 ? b.reason() : "first broken row " + b.row()));
            }
        }
        out.println("journal " + dir + (result.intact() ? ": both chains intact" : ": BROKEN"));
        return result.intact() ? ExitStatus.OK : ExitStatus.CHECK_FAILED;
    }
}
