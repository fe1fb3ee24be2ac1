package dev.postern.app.check;

import dev.postern.app.config.GatewayConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Runs the deep checks (and, when asked, the connection checks) and prints their findings, one a line. */
public final class DeepReport {
    private DeepReport() {
    }

    /** Prints every finding on {@code out}, {@code kinds} being the registered kinds' checks; returns whether any is an error. */
    public static boolean print(GatewayConfig config, List<KindCheck> kinds, boolean connect, PrintStream out) {
        DeepCheck check = new DeepCheck(config, kinds);
        List<Finding> findings = new ArrayList<>(check.all());
        if (connect) {
            findings.addAll(check.connections());
        }
        long errors = findings.stream().filter(f -> f.severity() == Finding.Severity.ERROR).count();
        long warnings = findings.size() - errors;
        out.println("deep check" + (connect ? " with connections" : "") + ": " + (findings.isEmpty() ? "no findings"
                : errors + (errors == 1 ? " error, " : " errors, ") + warnings + (warnings == 1 ? " warning" : " warnings")));
        findings.forEach(f -> out.println(f.line()));
        return errors > 0;
    }

    /**
     * What {@code mcp-stdio} says before it serves: the quick checks' findings as warnings on
     * {@code diagnostics}, then the DNS-dependent ones from a daemon thread, so a slow resolver
     * never delays the session.
     */
    public static void atStart(GatewayConfig config, List<KindCheck> kinds, PrintStream diagnostics) {
        DeepCheck check = new DeepCheck(config, kinds);
        check.atStart().forEach(f -> diagnostics.println(startLine(f)));
        Thread names = new Thread(() -> check.addresses(HostNames.DNS).forEach(f -> diagnostics.println(startLine(f))),
                "postern-start-check");
        names.setDaemon(true);
        names.start();
    }

    private static String startLine(Finding f) {
        return "postern: warning: " + f.line();
    }
}
