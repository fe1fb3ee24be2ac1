package dev.postern.app.check;

/**
 * A host-key probe refuses the key on purpose, and MINA logs that refusal as a warning ("Server key
 * did not validate") that reads as a failure. Probing commands call {@link #quiet} first: it raises
 * MINA's log level to errors, before its loggers exist (slf4j-simple reads the level when it
 * creates a logger, so this works only before the first SSH class logs; both probing commands run
 * before any).
 */
public final class SshProbeLogging {
    private SshProbeLogging() {
    }

    public static void quiet() {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.sshd", "error");
    }
}
