package dev.postern.executor.ssh;

import dev.postern.fixtures.FakeSshServer;

/** Reads the operator's command line back out of an exec line the stop-wrapper made, as the fake server receives it. */
final class Wrapped {
    private Wrapped() {
    }

    /** {@link #operatorLine} of each line, in order. */
    static java.util.List<String> operatorLines(java.util.List<String> execLines) {
        return execLines.stream().map(Wrapped::operatorLine).toList();
    }

    /** Answers as the fake's default does, but echoes the operator's command line rather than the wrapper's. */
    static FakeSshServer.Reply echo(String execLine) {
        return FakeSshServer.Reply.exit(operatorLine(execLine), "", 0);
    }

    /** The command line {@link StopWrapper#wrap} wrapped; throws for any other line. */
    static String operatorLine(String execLine) {
        if (!execLine.startsWith(StopWrapper.PREFIX)) {
            throw new AssertionError("not an exec line of the stop-wrapper: " + execLine);
        }
        String quoted = execLine.substring(StopWrapper.PREFIX.length());
        if (quoted.length() < 2 || quoted.charAt(0) != '\'' || quoted.charAt(quoted.length() - 1) != '\'') {
            throw new AssertionError("the wrapped command line is not quoted: " + quoted);
        }
        return quoted.substring(1, quoted.length() - 1).replace("'\\''", "'");
    }
}
