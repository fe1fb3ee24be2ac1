package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import java.util.List;

/** One subcommand: its name, a one-line summary for the usage text, its help, and its run. */
public interface Command {

    String name();

    /** The synopsis and one line, as {@code postern --help} lists it. */
    String summary();

    /** The full text {@code postern NAME --help} prints. */
    String help();

    /** The help for {@code postern NAME ARGS... --help}: a command with subcommands may answer per subcommand. */
    default String help(List<String> args) {
        return help();
    }

    /** Runs with the arguments after the command name; {@code --help} is handled by the caller. */
    ExitStatus run(List<String> args, Io io);
}
