package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import dev.postern.app.Gateway;
import dev.postern.journal.ChainVerifier;
import dev.postern.journal.Checkpoints;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code postern audit verify DIR [--public-key FILE]}: checks both journals' hash chains and names the
 * first broken row; with a public key, also every checkpoint's signature. {@code audit show} is
 * {@link AuditShowCommand}; this command routes {@code audit} to it.
 */
final class AuditVerifyCommand implements Command {
    /** Interrupted actions listed one per line; the rest are counted. */
    private static final int MAX_LISTED = 20;

    @Override
    public String name() {
        return "audit";
    }

    @Override
    public String summary() {
        return "audit verify DIR [--public-key FILE]\n"
                + "                               verify both journals' hash chains (and signed checkpoints)\n"
                + "  audit show DIR [options]     the journals as a table: each intent with its outcome, denials\n"
                + "  audit replay [DIR] --config NEW\n"
                + "                               what a candidate config would have decided of every journaled call";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern audit verify DIR [--public-key FILE]",
                "       postern audit verify --config FILE [--public-key FILE]   (DIR is the config's journal.directory;",
                "                                            so is POSTERN_CONFIG's when neither is given)",
                "       postern audit show DIR [options]   (see 'postern audit show --help')",
                "       postern audit replay [DIR] --config NEW   (see 'postern audit replay --help')",
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
                "--public-key FILE   the Ed25519 public key in PEM (as 'openssl pkey -in KEY -pubout' prints",
                "                    it) of the journal.signingKey the gateways sign checkpoints with. Every",
                "                    checkpoint row's signature is verified, which also catches a chain that",
                "                    was recomputed from some row on by someone without the private key. A",
                "                    journal with rows but no checkpoint at all fails; rows after the last",
                "                    checkpoint are counted as unsigned, which is normal while a gateway runs",
                "                    (checkpoints come every " + Checkpoints.DEFAULT_EVERY_ROWS + " rows and when a gateway ends its session).",
                "                    Without it, checkpoints are checked only for their place in the chain.",
                "",
                "Exit status 0 when both chains are intact, 6 when one is broken, a checkpoint's signature",
                "does not verify, a journal has no checkpoint (with --public-key), or DIR holds no journal or",
                "does not exist (\"no journal here\"), 1 on a usage error (DIR a file, not a directory), 4 when",
                "the config given instead is invalid.");
    }

    @Override
    public String help(List<String> args) {
        if (!args.isEmpty() && args.get(0).equals("replay")) {
            return AuditReplayCommand.HELP;
        }
        return !args.isEmpty() && args.get(0).equals("show") ? AuditShowCommand.HELP : help();
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        if (!args.isEmpty() && args.get(0).equals("show")) {
            return new AuditShowCommand().run(args.subList(1, args.size()), io);
        }
        if (!args.isEmpty() && args.get(0).equals("replay")) {
            return new AuditReplayCommand().run(args.subList(1, args.size()), io);
        }
        Path dir;
        Optional<String> absent;
        Optional<PublicKey> key;
        try {
            Options options = Options.parse(args, Set.of("--public-key", "--config"));
            List<String> words = options.positional();
            if (words.isEmpty() || !words.get(0).equals("verify")) {
                throw new Options.UsageException(words.isEmpty() ? "missing subcommand 'verify', 'show' or 'replay'"
                        : "unknown subcommand '" + words.get(0) + "'");
            }
            if (words.size() > 2) {
                throw new Options.UsageException("unexpected argument " + words.get(2));
            }
            Optional<Path> named = JournalDirectoryArgument.of(words.stream().skip(1).findFirst(), options, System.getenv(), io);
            if (named.isEmpty()) {
                return ExitStatus.CONFIG_ERROR;
            }
            dir = named.get();
            absent = JournalDirectoryArgument.whyNoJournal(dir);
            key = options.get("--public-key").isEmpty() ? Optional.empty() : Optional.of(publicKey(Path.of(options.get("--public-key").get())));
        } catch (Options.UsageException e) {
            io.stderr().println("postern audit: " + e.getMessage() + "\n\n" + help());
            return ExitStatus.USAGE;
        }
        PrintStream out = io.report();
        if (absent.isPresent()) {
            out.println("no journal here: " + absent.get());
            io.stderr().println("postern audit verify: no journal here: " + absent.get());
            return ExitStatus.CHECK_FAILED;
        }
        ChainVerifier.Result result = Gateway.chainVerifier().verify(dir, key);
        boolean unsigned = false;
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
                if (key.isPresent() && !signed(f, out)) {
                    unsigned = true;
                }
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
        if (!result.intact()) {
            out.println("journal " + dir + ": BROKEN");
            return ExitStatus.CHECK_FAILED;
        }
        out.println("journal " + dir + ": both chains intact" + (key.isEmpty() ? "" : unsigned
                ? ", but a journal has rows and no checkpoint signed by this key" : ", every checkpoint's signature verified"));
        return unsigned ? ExitStatus.CHECK_FAILED : ExitStatus.OK;
    }

    /** Reports a journal's checkpoints (signatures verified); false when it has rows but no checkpoint at all. */
    private static boolean signed(ChainVerifier.FileResult f, PrintStream out) {
        ChainVerifier.Signing s = f.signing();
        if (f.rows() == 0) {
            return true;
        }
        if (s.checkpoints() == 0) {
            out.println(f.file() + ": NOT SIGNED: no checkpoint in " + f.rows() + (f.rows() == 1 ? " row" : " rows")
                    + " (journal.signingKey was not set, or the gateway has not yet reached a checkpoint; a chain rewritten"
                    + " without the key and stripped of its checkpoints also looks like this)");
            return false;
        }
        out.println(f.file() + ": " + s.checkpoints() + (s.checkpoints() == 1 ? " checkpoint" : " checkpoints")
                + ", every signature verified; the last signs the rows up to seq " + (s.lastCheckpointSeq() - 1)
                + (f.unsignedRows() == 0 ? "; no unsigned rows" : "; " + f.unsignedRows() + (f.unsignedRows() == 1 ? " row" : " rows")
                + " after it unsigned (normal while a gateway runs; a gateway killed before its session ended leaves them too)"));
        return true;
    }

    /** The public key in {@code file}, or a usage error that says what is wrong with it. */
    private static PublicKey publicKey(Path file) throws Options.UsageException {
        try {
            return Checkpoints.publicKey(Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new Options.UsageException("--public-key " + file + ": cannot read it (" + e.getClass().getSimpleName() + ")");
        } catch (GeneralSecurityException e) {
            throw new Options.UsageException("--public-key " + file + ": " + e.getMessage());
        }
    }
}
