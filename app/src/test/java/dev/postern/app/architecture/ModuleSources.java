package dev.postern.app.architecture;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Postern's modules with main code, each by its root package, so a test can prove the rules saw every
 * one of them: a module whose classes are missing from the import fails, it is never skipped. App's
 * tests cannot see the modules built after it; the demo module checks the whole reactor
 * ({@code ReactorArchitectureTest} there). Stateless.
 */
final class ModuleSources {

    /** Every module with main code, in reactor order, by root package. */
    static final Map<String, String> MODULES = modules();

    /** The modules app's own test run cannot see (demo depends on app; bench is built after it). */
    static final List<String> CHECKED_FROM_DEMO = List.of("bench", "demo");

    private ModuleSources() {
    }

    private static Map<String, String> modules() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("policy", "dev.postern.policy");
        m.put("transport", "dev.postern.transport");
        m.put("protocol", "dev.postern.protocol");
        m.put("executor-http", "dev.postern.executor.http");
        m.put("executor-ssh", "dev.postern.executor.ssh");
        m.put("executor-sql", "dev.postern.executor.sql");
        m.put("executor-mcp", "dev.postern.executor.mcp");
        m.put("telemetry", "dev.postern.telemetry");
        m.put("journal", "dev.postern.journal");
        m.put("test-fixtures", "dev.postern.fixtures");
        m.put("app", "dev.postern.app");
        m.put("bench", "dev.postern.bench");
        m.put("demo", "dev.postern.demo");
        return Collections.unmodifiableMap(m);
    }
}
