package dev.postern.executor.ssh;

import java.time.Duration;
import java.util.Objects;

/**
 * The exec line Postern sends for a permitted command: a POSIX {@code sh} wrapper that runs the
 * operator's command line unchanged under the login shell ({@code $SHELL -c}, as sshd does), with
 * stdin from {@code /dev/null}, in a process group of its own, and stops that group when the
 * channel's input ends while the command still runs: TERM at once, KILL {@link #GRACE} later.
 *
 * <p>How: the wrapper's process becomes the command ({@code exec}), so its exit status and exit signal
 * are the command's own. It is a process-group leader already when the server made the session one
 * (OpenSSH and Dropbear call setsid for every session); otherwise {@code setsid(1)} makes it one
 * without a fork; without either, only the command's own process is signalled. Before the exec it
 * forks one watcher that reads the channel's input (Postern sends nothing on it) and, at end of input
 * with the command's process still alive, signals the group. A normal exit closes the input after the
 * process has ended, so the watcher then stops nothing.
 *
 * <p>Limits: needs {@code sh} on the host's PATH and a login shell that understands {@code exec} and
 * single quotes; a process that leaves the group (setsid, a daemon) survives; processes the command
 * leaves behind after its own process ended are never stopped. The script has no single quote,
 * backslash, {@code !} or newline, so csh and fish pass it to {@code sh} unchanged. Stateless.
 */
final class StopWrapper {
    /** How long the command's group has between TERM and KILL. */
    static final Duration GRACE = Duration.ofSeconds(2);

    /** The name the wrapper runs under ({@code $0}), which {@code ps} shows until the command starts. */
    static final String NAME = "postern-stop";

    static final String SCRIPT = "g=-$$; s=; kill -0 $g 2>/dev/null || if command -v setsid >/dev/null 2>&1; then s=setsid;"
            + " else g=$$; fi; exec 3<&0; (trap \"\" TERM HUP; while read -r l; do :; done; kill -0 $$ 2>/dev/null"
            + " && { kill -TERM $g; sleep " + GRACE.toSeconds() + "; kill -KILL $g; }) <&3 >/dev/null 2>&1 &"
            + " exec $s \"${SHELL:-sh}\" -c \"$1\" <&- 3<&- </dev/null";

    /** Everything before the quoted command line. */
    static final String PREFIX = "exec sh -c '" + SCRIPT + "' " + NAME + ' ';

    private StopWrapper() {
    }

    /** The exec line that runs {@code commandLine} (the permit's, already quoted) under the wrapper. */
    static String wrap(String commandLine) {
        Objects.requireNonNull(commandLine, "commandLine");
        return PREFIX + quote(commandLine);
    }

    private static String quote(String text) {
        return '\'' + text.replace("'", "'\\''") + '\'';
    }
}
