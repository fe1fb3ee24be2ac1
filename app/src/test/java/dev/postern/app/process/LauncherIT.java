package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.StdoutTranscript;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator meets before the gateway serves: the launcher found through a symlink, the config
 * named three ways, a missing or too old java named with JAVA_HOME, and the one start line.
 */
class LauncherIT {
    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}\n";

    @TempDir
    Path dir;

    private Path config;

    @BeforeEach
    void writeConfig() throws Exception {
        config = dir.resolve("conf").resolve("postern.json");
        Files.createDirectories(config.getParent());
        Files.writeString(config, "{ \"journal\": { \"directory\": \"./journal\" } }");
    }

    @Test
    void aSymlinkInAnotherDirectoryStartsTheRealLauncherWithoutBuilding() throws Exception {
        Path bin = Files.createDirectories(dir.resolve("home").resolve("bin"));
        Path link = Files.createSymbolicLink(bin.resolve("postern"), LauncherProcess.launcher());
        Path chain = Files.createSymbolicLink(dir.resolve("p"), link);

        LauncherProcess p = LauncherProcess.exec(List.of(chain.toString(), "--version"), new byte[0], bin, Map.of());

        assertEquals(0, p.exitStatus, p.describe());
        assertTrue(new String(p.stdout, StandardCharsets.UTF_8).startsWith("postern "), p.describe());
        assertFalse(p.stderrText().contains("building"), "the jar beside the real launcher was found: " + p.describe());
    }

    @Test
    void theConfigMayBeNamedByPosternConfigOrConfigEqualsAndTheOptionWins() throws Exception {
        LauncherProcess byEnvironment = LauncherProcess.run(List.of("check-config"), new byte[0], dir,
                Map.of("POSTERN_CONFIG", config.toString()));
        LauncherProcess byEquals = LauncherProcess.run(List.of("check-config", "--config=" + config), new byte[0], dir, Map.of());
        LauncherProcess optionWins = LauncherProcess.run(List.of("check-config", "--config", config.toString()), new byte[0], dir,
                Map.of("POSTERN_CONFIG", dir.resolve("absent.json").toString()));
        LauncherProcess neither = LauncherProcess.run(List.of("check-config"), new byte[0], dir, Map.of("POSTERN_CONFIG", ""));

        for (LauncherProcess p : List.of(byEnvironment, byEquals, optionWins)) {
            assertEquals(0, p.exitStatus, p.describe());
            assertTrue(new String(p.stdout, StandardCharsets.UTF_8).startsWith("configuration " + config + " is valid"), p.describe());
        }
        assertEquals(1, neither.exitStatus, neither.describe());
        assertTrue(neither.stderrText().contains("--config is required (or set POSTERN_CONFIG)"), neither.describe());
    }

    @Test
    void mcpStdioTakesPosternConfigAndSaysOneStartLineOnStderrOnly() throws Exception {
        LauncherProcess p = LauncherProcess.run(List.of("mcp-stdio"), INITIALIZE.getBytes(StandardCharsets.UTF_8), dir,
                Map.of("POSTERN_CONFIG", config.toString()));

        assertEquals(0, p.exitStatus, p.describe());
        StdoutTranscript.assertProtocolOnly(p.stdout, String.join(" ", p.command), p.stderr);
        String first = p.stderrText().lines().findFirst().orElse("");
        assertTrue(first.matches("postern \\S+: serving " + java.util.regex.Pattern.quote(config.toString())
                + " \\(journal " + java.util.regex.Pattern.quote(config.getParent().resolve("journal").toString())
                + "; HTTP targets: 0, SSH hosts: 0, SQL databases: 0, upstream MCP servers: 0\\)"), p.describe());
    }

    @Test
    void noJavaOnPathAndNoJavaHomeIsNamedClearly() throws Exception {
        LauncherProcess p = withoutJava(null);

        assertEquals(5, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains("no java on PATH and JAVA_HOME is not set"), p.describe());
        assertTrue(p.stderrText().contains("Java 17 or later. Set JAVA_HOME"), p.describe());
        assertFalse(p.stderrText().contains("not found"), "no bare shell error: " + p.describe());
    }

    @Test
    void aBogusJavaHomeIsNamed() throws Exception {
        LauncherProcess p = withoutJava(dir.resolve("no-such-jdk").toString());

        assertEquals(5, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains("JAVA_HOME is set to '" + dir.resolve("no-such-jdk") + "'"), p.describe());
    }

    @Test
    void aJavaOlderThan17IsRefusedByItsVersion() throws Exception {
        Path jdk = Files.createDirectories(dir.resolve("old-jdk").resolve("bin")).getParent();
        Files.writeString(jdk.resolve("release"), "JAVA_VERSION=\"11.0.2\"\n");
        Path java = Files.writeString(jdk.resolve("bin").resolve("java"), "#!/bin/sh\necho 'this java must not be started' >&2\nexit 99\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));

        LauncherProcess p = withoutJava(jdk.toString());

        assertEquals(5, p.exitStatus, p.describe());
        assertTrue(p.stderrText().contains(java + " is Java 11.0.2"), p.describe());
        assertFalse(p.stderrText().contains("must not be started"), p.describe());
    }

    /**
     * Runs {@code postern --version} with a PATH holding only the tools the launcher uses (no java)
     * and JAVA_HOME set to {@code javaHome} or removed.
     */
    private LauncherProcess withoutJava(String javaHome) throws Exception {
        Path tools = Files.createDirectories(dir.resolve("tools"));
        for (String tool : List.of("bash", "readlink", "dirname", "sed", "head", "cat")) {
            Path real = Path.of("/usr/bin", tool);
            if (!Files.exists(tools.resolve(tool))) {
                Files.createSymbolicLink(tools.resolve(tool), Files.exists(real) ? real : Path.of("/bin", tool));
            }
        }
        ProcessBuilder pb = new ProcessBuilder(List.of(tools.resolve("bash").toString(), LauncherProcess.launcher().toString(), "--version"))
                .directory(dir.toFile());
        Map<String, String> env = new HashMap<>(pb.environment());
        env.put("PATH", tools.toString());
        env.remove("JAVA_HOME");
        if (javaHome != null) {
            env.put("JAVA_HOME", javaHome);
        }
        return LauncherProcess.exec(pb.command(), new byte[0], dir, env, true);
    }
}
