package dev.postern.app.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModuleSourcesTest {

    @Test
    void aModuleIsListedByItsShallowestPackageInReactorOrder(@TempDir Path root) throws IOException {
        Files.writeString(root.resolve("pom.xml"), "<project><modules>\n"
                + "  <module>zeta</module>\n"
                + "  <!-- <module>commented</module> -->\n"
                + "  <module>tests-only</module>\n"
                + "  <module>alpha</module>\n"
                + "</modules>\n<profiles><profile><modules><module>elsewhere</module></modules></profile></profiles></project>",
                StandardCharsets.UTF_8);
        write(root.resolve("zeta/src/main/java/org/example/zeta/deep/Inner.java"));
        write(root.resolve("zeta/src/main/java/org/example/zeta/Top.java"));
        write(root.resolve("tests-only/src/test/java/org/example/OnlyATest.java"));
        write(root.resolve("alpha/src/main/java/org/example/alpha/package-info.java"));
        write(root.resolve("commented/src/main/java/org/example/commented/C.java"));
        write(root.resolve("elsewhere/src/main/java/org/example/elsewhere/E.java"));

        Map<String, String> modules = ModuleSources.modules(root);

        assertEquals(Map.of("zeta", "org.example.zeta", "alpha", "org.example.alpha"), modules);
        assertEquals("zeta", modules.keySet().iterator().next(), "reactor order");
    }

    @Test
    void theBuildsOwnModulesAreReadWithTheirRootPackages() {
        assertEquals("dev.postern.policy", ModuleSources.MODULES.get("policy"));
        assertEquals("dev.postern.fixtures", ModuleSources.MODULES.get("test-fixtures"));
        assertEquals("dev.postern.executor.mcp", ModuleSources.MODULES.get("executor-mcp"));
        assertEquals(false, ModuleSources.MODULES.containsKey("interop"), "interop has test code only");
    }

    private static void write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "", StandardCharsets.UTF_8);
    }
}
