package dev.postern.app.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.opentest4j.TestAbortedException;

/**
 * Checks every rule of {@link ArchitectureRules}, found by reflection so a new rule cannot be left out,
 * against Postern's production classes. A rule that finds nothing to check fails, unless a module of the
 * reactor has no sources at all yet; then the test is reported as skipped, naming the missing modules.
 */
class ArchitectureTest {

    /** Raise this with each rule added to ArchitectureRules, together with its self-test case. */
    static final int RULE_COUNT = 17;

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
                .map(rule -> dynamicTest(rule.getKey(), () -> check(rule.getKey(), rule.getValue())));
    }

    @Test
    void theStdoutGuardExemptedByNameExists() {
        assumeModuleHasSources("transport");
        assertTrue(production.contain(ArchitectureRules.STDOUT_GUARD), ArchitectureRules.STDOUT_GUARD + " is missing");
    }

    @Test
    void theDispatcherExemptedByNameExists() {
        assumeModuleHasSources("app");
        assertTrue(production.contain(ArchitectureRules.DISPATCHER), ArchitectureRules.DISPATCHER + " is missing");
    }

    private static void assumeModuleHasSources(String module) {
        assumeFalse(ModuleSources.modulesWithoutSources().contains(module), () -> module + " has no sources yet");
    }

    private static void check(String name, ArchRule rule) {
        try {
            rule.check(production);
        } catch (AssertionError failure) {
            List<String> missing = ModuleSources.modulesWithoutSources();
            String message = String.valueOf(failure.getMessage());
            if (message.contains("failed to check any classes") && !missing.isEmpty()) {
                throw new TestAbortedException(name + " has nothing to check while these modules have no sources: "
                        + missing, failure);
            }
            throw failure;
        }
    }
}
