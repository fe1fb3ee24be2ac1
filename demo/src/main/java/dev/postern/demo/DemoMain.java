package dev.postern.demo;

import dev.postern.app.ExitStatus;
import dev.postern.app.cli.Io;
import dev.postern.transport.StdoutGuard;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.List;

/**
 * The demo jar's entry point, which {@code bin/postern demo} starts: claims stdout first (as the
 * gateway's own entry point does), then runs {@code demo [--dir DIR]} or prints its help. The
 * gateway jar carries no demo; its {@code postern --help} only lists this command.
 */
public final class DemoMain {
    private DemoMain() {
    }

    public static void main(String[] args) {
        OutputStream stdout = StdoutGuard.claimProtocolStream();
        ExitStatus status = run(Arrays.asList(args), new Io(stdout, System.in, System.err));
        System.exit(status.code());
    }

    /** Runs {@code args} (the command name {@code demo} first, as the launcher passes them). */
    static ExitStatus run(List<String> args, Io io) {
        DemoCommand demo = new DemoCommand();
        if (args.isEmpty() || !args.get(0).equals(DemoCommand.NAME)) {
            io.stderr().println("postern-demo: the first argument must be '" + DemoCommand.NAME + "'\n\n" + demo.help());
            return ExitStatus.USAGE;
        }
        List<String> rest = args.subList(1, args.size());
        if (rest.contains("--help") || rest.contains("-h")) {
            io.report().println(demo.help());
            return ExitStatus.OK;
        }
        return demo.run(rest, io);
    }
}
