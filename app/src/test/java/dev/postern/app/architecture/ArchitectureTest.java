package dev.postern.app.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Checks every rule of {@link ArchitectureRules}, found by reflection so a new rule cannot be left out,
 * against Postern's production classes. A rule that finds nothing to check fails, and so does a module
 * whose classes are missing from the import: nothing is skipped. The demo module runs the same checks
 * over the modules app cannot see ({@link ModuleSources#CHECKED_FROM_DEMO}).
 */
class ArchitectureTest {

    /** Raise this with each rule added to ArchitectureRules, together with its self-test case. */
    static final int RULE_COUNT = 23;

    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        production = ArchitectureRules.productionClasses();
    }

    @Test
    void reflectionFindsEveryRule() {
        assertEquals(RULE_COUNT, ArchitectureRules.all().size(), () -> "rules found: " + ArchitectureRules.all().keySet());
    }

    @Test
    void productionImportHoldsTheKernelAndNoTestClass() {
        assertTrue(production.contain("dev.postern.policy.AuthorizedAction"), "the policy kernel was not imported");
        assertFalse(production.contain(ArchitectureTest.class), "test classes were imported as production");
        assertTrue(production.stream().noneMatch(javaClass -> javaClass.getPackageName().contains("archfixtures")),
                "architecture fixtures were imported as production");
    }

    @TestFactory
    Stream<DynamicTest> productionCodeKeepsEveryRule() {
        return ArchitectureRules.all().entrySet().stream()
                .map(rule -> dynamicTest(rule.getKey(), () -> rule.getValue().check(production)));
    }

    @Test
    void everyModuleAppCanSeeHasClassesUnderTheRules() {
        assertEquals(List.of(), missingModules(production, ModuleSources.CHECKED_FROM_DEMO));
    }

    @Test
    void theStdoutGuardExemptedByNameExists() {
        assertTrue(production.contain(ArchitectureRules.STDOUT_GUARD), ArchitectureRules.STDOUT_GUARD + " is missing");
    }

    @Test
    void theHostileUpstreamExemptedByNameExists() {
        assertTrue(production.contain(ArchitectureRules.HOSTILE_UPSTREAM), ArchitectureRules.HOSTILE_UPSTREAM + " is missing");
    }

    @Test
    void theTelemetryEntryExemptedByNameExists() {
        assertTrue(production.contain(ArchitectureRules.TELEMETRY_ENTRY), ArchitectureRules.TELEMETRY_ENTRY + " is missing");
    }

    @Test
    void theDispatcherExemptedByNameExists() {
        assertTrue(production.contain(ArchitectureRules.DISPATCHER), ArchitectureRules.DISPATCHER + " is missing");
    }

    /** The modules (but {@code except}) none of whose classes are among {@code imported}. */
    static List<String> missingModules(JavaClasses imported, List<String> except) {
        return ModuleSources.MODULES.entrySet().stream()
                .filter(module -> !except.contains(module.getKey()))
                .filter(module -> imported.stream().noneMatch(c -> c.getPackageName().equals(module.getValue())
                        || c.getPackageName().startsWith(module.getValue() + '.')))
                .map(Map.Entry::getKey)
                .collect(Collectors.toList());
    }
}
