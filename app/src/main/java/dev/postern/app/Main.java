package dev.postern.app;

import dev.postern.app.cli.Cli;
import dev.postern.app.cli.Io;
import dev.postern.transport.StdoutGuard;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.OutputStream;

/**
 * The process entry point. Its first act is to claim the protocol stream, before any other
 * Postern or library class loads, so that nothing else can ever write to stdout.
 *
 * <p>Standard input is read unbuffered (a {@link FileInputStream} on descriptor 0, not
 * {@code System.in}): the frame reader reads 64 KiB chunks itself, and {@code System.in}'s buffer
 * added an {@code available()} after every read, two more system calls (fstat, FIONREAD) per
 * chunk. The same bytes reach the reader in the same order; nothing else reads standard input.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        OutputStream stdout = StdoutGuard.claimProtocolStream();
        ExitStatus status = Cli.run(args, new Io(stdout, new FileInputStream(FileDescriptor.in), System.err));
        System.exit(status.code());
    }
}
