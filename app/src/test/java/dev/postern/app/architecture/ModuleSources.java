package dev.postern.app.architecture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Which of Postern's modules have no main sources yet in this checkout, found by walking up from the
 * working directory to the reactor root. Outside a checkout it finds none missing, so every rule is
 * enforced in full. Stateless; reads the file system on each call.
 */
final class ModuleSources {

    static final List<String> MODULES =
            List.of("policy", "transport", "protocol", "executor-http", "executor-ssh", "test-fixtures", "app");

    private ModuleSources() {
    }

    /** Modules whose {@code src/main/java} holds no class other than package-info. */
    static List<String> modulesWithoutSources() {
        Optional<Path> root = reactorRoot();
        if (root.isEmpty()) {
            return List.of();
        }
        return MODULES.stream()
                .filter(module -> !hasJavaSources(root.get().resolve(module).resolve("src/main/java")))
                .collect(Collectors.toUnmodifiableList());
    }

    private static Optional<Path> reactorRoot() {
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("pom.xml")) && Files.isRegularFile(dir.resolve("policy/pom.xml"))
                    && Files.isRegularFile(dir.resolve("app/pom.xml"))) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }

    private static boolean hasJavaSources(Path sourceRoot) {
        if (!Files.isDirectory(sourceRoot)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            return files.map(path -> path.getFileName().toString())
                    .anyMatch(name -> name.endsWith(".java") && !name.equals("package-info.java")
                            && !name.equals("module-info.java"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
