package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's start-up cache is only ever used by the JDK that wrote it: a class-data archive
 * written by JDK 17 put where the launcher looks for JDK 25's cache (and JDK 25's ahead-of-time cache
 * put where it looks for JDK 17's archive) costs a plain start and prints nothing about it, on stdout
 * or stderr; {@code initialize} is answered. Needs a JDK 25 (at {@code -Dpostern.test.jdk25}, default
 * /usr/lib/jvm/temurin-25-jdk-amd64); skipped without one.
 */
class StartupCacheIT {
    private static final Pattern CACHE_TALK = Pattern.compile("(?i)cds|aot|shared archive|sharing|archive");
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n";

    @TempDir
    Path root;

    Path jar;
    Path config;
    Path jdk17;
    Path jdk25;

    @BeforeEach
    void copyTheLauncherAndJar() throws Exception {
        jdk17 = Path.of(System.getProperty("java.home"));
        jdk25 = Path.of(System.getProperty("postern.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
        assumeTrue(Files.isExecutable(jdk25.resolve("bin/java")), "no JDK 25 at " + jdk25);
        assumeTrue(Runtime.version().feature() < 25, "the build's JDK must be older than 25 for this test");
        Files.createDirectories(root.resolve("bin"));
        Files.createDirectories(root.resolve("app/target"));
        Path launcher = Files.copy(LauncherProcess.launcher(), root.resolve("bin/postern"));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        jar = Files.copy(LauncherProcess.jar(), root.resolve("app/target").resolve(LauncherProcess.jar().getFileName()));
        config = root.resolve("postern.json");
        Files.writeString(config, "{ \"journal\": { \"directory\": \"journal\" } }");
    }

    @Test
    void jdk25GivenAnArchiveWrittenByJdk17StartsPlainlyAndSaysNothing() throws Exception {
        Path archive17 = write(jdk17, "-XX:ArchiveClassesAtExit=", "written-by-17.jsa");
        offer(archive17, jdk25, ".aot");
        offer(archive17, jdk25, ".jsa");
        answersInitializeSilently(jdk25);
    }

    @Test
    void jdk17GivenACacheWrittenByJdk25StartsPlainlyAndSaysNothing() throws Exception {
        Path cache25 = write(jdk25, "-XX:AOTCacheOutput=", "written-by-25.aot");
        offer(cache25, jdk17, ".jsa");
        answersInitializeSilently(jdk17);
    }

    @Test
    void eachJdkGivenItsOwnCacheAnswersInitializeSilently() throws Exception {
        offer(write(jdk17, "-XX:ArchiveClassesAtExit=", "own-17.jsa"), jdk17, ".jsa");
        offer(write(jdk25, "-XX:AOTCacheOutput=", "own-25.aot"), jdk25, ".aot");
        answersInitializeSilently(jdk17);
        answersInitializeSilently(jdk25);
    }

    /** Has {@code jdk} write a cache of a short run of the jar ({@code --help}), outside where the launcher looks. */
    private Path write(Path jdk, String option, String name) throws Exception {
        Path out = root.resolve(name);
        LauncherProcess p = LauncherProcess.exec(List.of(jdk.resolve("bin/java").toString(), "-XX:+UseSerialGC", "-Xss512k",
                "-XX:-UsePerfData", option + out, "-jar", jar.toString(), "--help"), new byte[0], root, Map.of());
        assertTrue(Files.isRegularFile(out), "no cache written: " + p.describe());
        return out;
    }

    /** Puts {@code cache} where the launcher looks for {@code jdk}'s cache of kind {@code ext}, newer than the jar. */
    private void offer(Path cache, Path jdk, String ext) throws Exception {
        String base = jar.getFileName().toString().replaceFirst("\\.jar$", "");
        Path target = jar.resolveSibling(base + "." + key(jdk) + ext);
        Files.copy(cache, target, StandardCopyOption.REPLACE_EXISTING);
        Files.setLastModifiedTime(jar, FileTime.from(Instant.now().minusSeconds(3600)));
        Files.setLastModifiedTime(target, FileTime.from(Instant.now()));
    }

    private void answersInitializeSilently(Path jdk) throws Exception {
        // The copied launcher, which looks beside the copied jar.
        LauncherProcess p = LauncherProcess.exec(List.of(root.resolve("bin/postern").toString(), "mcp-stdio", "--config", config.toString()),
                INITIALIZE.getBytes(StandardCharsets.UTF_8), root, Map.of("JAVA_HOME", jdk.toString()));
        String out = new String(p.stdout, StandardCharsets.UTF_8);
        assertEquals(0, p.exitStatus, p.describe());
        JsonNode answer = new ObjectMapper().readTree(out.lines().findFirst().orElseThrow(() -> new AssertionError(p.describe())));
        assertEquals(1, answer.path("id").asInt(), p.describe());
        assertTrue(answer.has("result"), p.describe());
        assertFalse(CACHE_TALK.matcher(out).find(), "stdout mentions a cache: " + p.describe());
        assertFalse(CACHE_TALK.matcher(p.stderrText()).find(), "stderr mentions a cache: " + p.describe());
    }

    /** The launcher's key for a JDK: "<JAVA_RUNTIME_VERSION>-<IMPLEMENTOR>" from its release file, other characters as _. */
    private static String key(Path jdk) throws Exception {
        String runtime = "";
        String vendor = "";
        for (String line : Files.readAllLines(jdk.resolve("release"))) {
            int eq = line.indexOf('=');
            if (eq < 0) {
                continue;
            }
            String value = line.substring(eq + 1).replaceAll("^\"|\"$", "");
            switch (line.substring(0, eq)) {
                case "JAVA_RUNTIME_VERSION" -> runtime = value;
                case "IMPLEMENTOR" -> vendor = value;
                default -> { }
            }
        }
        return (runtime + "-" + vendor).replaceAll("[^A-Za-z0-9.+-]", "_");
    }
}
