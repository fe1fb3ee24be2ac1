package dev.postern.app;

import dev.postern.app.cli.Cli;
import dev.postern.app.cli.Io;
import dev.postern.transport.StdoutGuard;
import java.io.OutputStream;

/**
 * The process entry point. Its first act is to claim the protocol stream, before any other
 * Postern or library class loads, so that nothing else can ever write to stdout.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        OutputStream stdout = StdoutGuard.claimProtocolStream();
        ExitStatus status = Cli.run(args, new Io(stdout, System.in, System.err));
        System.exit(status.code());
    }
}
