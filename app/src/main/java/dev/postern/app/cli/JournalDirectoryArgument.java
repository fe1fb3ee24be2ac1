package dev.postern.app.cli;

import dev.postern.app.config.GatewayConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code DIR} argument of {@code audit verify} and {@code audit show} (or the journal directory
 * of the config they are given instead), judged the same way for both: a directory is read; a path that is there but is not a directory is a usage error (status
 * 1: the command line names the wrong thing, such as a journal file instead of its directory); a
 * path that does not exist, or a directory this user cannot read, is "no journal here" (status 6), as a
 * directory without journal files is, so a deleted journal directory fails the check rather than
 * looking like a typing mistake.
 */
final class JournalDirectoryArgument {
    private JournalDirectoryArgument() {
    }

    /**
     * The directory an argument names, absolute. An empty or blank argument is a usage error, not the
     * current directory: a script whose variable is unset must not verify whatever journal lies there.
     */
    static Path parse(String argument) throws Options.UsageException {
        if (argument.isBlank()) {
            throw new Options.UsageException("the journal directory is an empty argument (an unset variable?)");
        }
        return Path.of(argument).toAbsolutePath().normalize();
    }

    /**
     * The journal directory of {@code audit show} and {@code audit verify}: the {@code DIR} word when
     * given, else {@code journal.directory} of the config that {@code --config} or {@code POSTERN_CONFIG}
     * names (empty after an invalid config was reported on {@code io}'s stderr: status 4).
     *
     * @throws Options.UsageException when there is neither a DIR nor a config, or both a DIR and {@code --config}
     */
    static Optional<Path> of(Optional<String> word, Options o, Map<String, String> environment, Io io) throws Options.UsageException {
        if (word.isPresent()) {
            if (o.get("--config").isPresent()) {
                throw new Options.UsageException("give the journal directory or --config, not both");
            }
            return Optional.of(parse(word.get()));
        }
        String file;
        try {
            file = ConfigArgument.file(o, environment);
        } catch (Options.UsageException e) {
            throw new Options.UsageException("missing journal directory (or --config FILE, or set " + ConfigArgument.ENVIRONMENT_VARIABLE
                    + ", to take it from the config's journal.directory)");
        }
        return ConfigArgument.load(file, io).map(GatewayConfig::journalDirectory);
    }

    /**
     * Why {@code dir} holds no journal to read, or empty when it is a directory (which may still hold
     * no journal files; the commands look for those themselves).
     *
     * @throws Options.UsageException when {@code dir} exists and is not a directory
     */
    static Optional<String> whyNoJournal(Path dir) throws Options.UsageException {
        if (Files.isDirectory(dir)) {
            if (!Files.isReadable(dir) || !Files.isExecutable(dir)) {
                return Optional.of(dir + " cannot be read by this user (" + System.getProperty("user.name") + ")");
            }
            return Optional.empty();
        }
        if (Files.notExists(dir)) {
            return Optional.of(dir + " does not exist");
        }
        if (Files.exists(dir)) {
            throw new Options.UsageException(dir + " is not a directory; give the journal directory (journal.directory in"
                    + " the config), which holds decisions.jsonl and actions.jsonl");
        }
        return Optional.of(dir + " cannot be read");
    }
}
