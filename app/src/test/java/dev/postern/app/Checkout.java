package dev.postern.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** The source checkout a test runs in, for the tests that read its documents and its build. Stateless. */
public final class Checkout {
    private Checkout() {
    }

    /** The checkout's root: the nearest directory above the working directory with CONTRIBUTING.md and policy/pom.xml. */
    public static Path root() {
        for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("CONTRIBUTING.md")) && Files.isRegularFile(dir.resolve("policy/pom.xml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no checkout with CONTRIBUTING.md above " + Paths.get("").toAbsolutePath());
    }
}
