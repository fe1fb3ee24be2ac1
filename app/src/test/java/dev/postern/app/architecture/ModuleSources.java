package dev.postern.app.architecture;

import dev.postern.app.Checkout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Postern's modules with main code, each by its root package, read from the build itself (the root
 * pom's {@code <module>} list, and the shallowest package holding a class in each module's
 * {@code src/main/java}), so a new module is under the rules without editing a test, and a module
 * whose classes are missing from the import fails, it is never skipped. App's tests cannot see the
 * modules built after it; the demo module checks the whole reactor ({@code ReactorArchitectureTest}
 * there). Stateless.
 */
final class ModuleSources {
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

    /** Every module with main code, in reactor order, by root package. */
    static final Map<String, String> MODULES = modules(Checkout.root());

    /** The modules app's own test run cannot see (demo depends on app; bench is built after it). */
    static final List<String> CHECKED_FROM_DEMO = List.of("bench", "demo");

    private ModuleSources() {
    }

    /** The modules of the build at {@code root} that have main code, in the root pom's order. */
    static Map<String, String> modules(Path root) {
        Map<String, String> m = new LinkedHashMap<>();
        String pom = read(root.resolve("pom.xml"));
        int from = pom.indexOf("<modules>");
        int to = pom.indexOf("</modules>", from);
        if (from < 0 || to < 0) {
            throw new IllegalStateException("no <modules> in " + root.resolve("pom.xml"));
        }
        Matcher matcher = MODULE.matcher(pom.substring(from, to).replaceAll("(?s)<!--.*?-->", ""));
        while (matcher.find()) {
            String module = matcher.group(1).trim();
            rootPackage(root.resolve(module).resolve("src/main/java")).ifPresent(p -> m.put(module, p));
        }
        return Collections.unmodifiableMap(m);
    }

    /** The shallowest package under {@code sources} that holds a Java file; empty without main code. */
    private static Optional<String> rootPackage(Path sources) {
        if (!Files.isDirectory(sources)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".java"))
                    .map(f -> sources.relativize(f.getParent()))
                    .min(Comparator.comparingInt(Path::getNameCount))
                    .map(dir -> dir.toString().replace(dir.getFileSystem().getSeparator(), "."));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
