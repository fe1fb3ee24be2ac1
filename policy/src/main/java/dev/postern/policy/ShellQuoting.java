package dev.postern.policy;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Quotes argv elements for a POSIX shell: every element in single quotes, each embedded single
 * quote as {@code '\''}. Inside single quotes a POSIX shell interprets nothing, so the remote shell
 * sees exactly the element. NUL cannot be passed and is refused.
 */
final class ShellQuoting {
    private ShellQuoting() {
    }

    static String quote(String element) {
        if (element.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("an argument must not contain NUL");
        }
        return '\'' + element.replace("'", "'\\''") + '\'';
    }

    static String commandLine(List<String> argv) {
        return argv.stream().map(ShellQuoting::quote).collect(Collectors.joining(" "));
    }
}
