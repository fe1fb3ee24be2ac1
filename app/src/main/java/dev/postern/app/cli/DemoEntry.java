package dev.postern.app.cli;

import dev.postern.app.ExitStatus;
import java.util.List;

/**
 * The {@code demo} line of {@code postern --help}. The demo itself lives in the {@code demo} module's
 * jar, which {@code bin/postern demo} builds and starts; this jar carries no demo (and no SSH server),
 * so run here it only says where the demo is.
 */
final class DemoEntry implements Command {
    @Override
    public String name() {
        return "demo";
    }

    @Override
    public String summary() {
        return "demo [--dir DIR]             run a scripted session through a real gateway, on loopback";
    }

    @Override
    public String help() {
        return String.join("\n",
                "usage: postern demo [--dir DIR]",
                "",
                "The demo ships in its own jar, demo/target/postern-demo-VERSION.jar; bin/postern demo",
                "builds it when it is missing and runs it. This jar (the gateway) carries no demo.",
                "Exit status 1 (usage) when started from this jar.");
    }

    @Override
    public ExitStatus run(List<String> args, Io io) {
        io.stderr().println(help());
        return ExitStatus.USAGE;
    }
}
