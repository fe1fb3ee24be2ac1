package dev.postern.app.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.tngtech.archunit.core.domain.JavaClasses;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every rule of {@link ArchitectureRules} over every module of the reactor, the demo and the benchmarks
 * included: app's own {@code ArchitectureTest} cannot see them, this module sees them all (app through
 * its dependency, bench as a test dependency). In app's package only to reach its package-private list
 * of modules.
 */
class ReactorArchitectureTest {
    private static JavaClasses production;

    @BeforeAll
    static void importProductionClasses() {
        production = ArchitectureRules.productionClasses();
    }

    @Test
    void everyModuleOfTheReactorHasClassesUnderTheRules() {
        assertEquals(List.of(), ArchitectureTest.missingModules(production, List.of()));
    }

    @Test
    void noTestClassWasImportedAsProduction() {
        assertFalse(production.contain(ReactorArchitectureTest.class), "test classes were imported as production");
        assertFalse(production.stream().anyMatch(c -> c.getPackageName().contains("archfixtures")),
                "app's architecture fixtures were imported as production");
    }

    @TestFactory
    Stream<DynamicTest> everyModuleKeepsEveryRule() {
        return ArchitectureRules.all().entrySet().stream()
                .map(rule -> dynamicTest(rule.getKey(), () -> rule.getValue().check(production)));
    }
}
