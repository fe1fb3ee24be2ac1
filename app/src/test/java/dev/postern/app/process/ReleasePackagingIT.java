package dev.postern.app.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code mvn package} ships: the versioned runnable jar (an SSH client, never an SSH server, and
 * no demo or test fixture), its release checksum, and {@code postern --version}.
 */
class ReleasePackagingIT {
    private static final Pattern RELEASE_JAR = Pattern.compile("postern-(\\d[^/]*)\\.jar");

    @TempDir
    Path dir;

    private static Path releaseJar() throws Exception {
        Path target = Path.of("target").toAbsolutePath();
        try (Stream<Path> files = Files.list(target)) {
            List<Path> jars = files.filter(f -> RELEASE_JAR.matcher(f.getFileName().toString()).matches()).collect(Collectors.toList());
            assertEquals(1, jars.size(), "exactly one versioned runnable jar in " + target + ": " + jars);
            return jars.get(0);
        }
    }

    @Test
    void releaseChecksumFileHoldsTheJarsSha256InSha256sumFormat() throws Exception {
        Path jar = releaseJar();
        Path checksum = jar.resolveSibling(jar.getFileName() + ".sha256");
        assertTrue(Files.exists(checksum), "mvn package writes " + checksum);

        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(jar)));
        assertEquals(expected + " *" + jar.getFileName(), Files.readString(checksum, StandardCharsets.US_ASCII).strip());
    }

    @Test
    void runnableJarCarriesNoSshServerNoDemoAndNoTestFixtures() throws Exception {
        List<String> entries;
        try (JarFile jar = new JarFile(releaseJar().toFile())) {
            entries = jar.stream().map(JarEntry::getName).collect(Collectors.toList());
        }
        assertTrue(entries.contains("org/apache/sshd/client/SshClient.class"), "the SSH client is shipped");
        List<String> forbidden = entries.stream()
                .filter(e -> e.startsWith("org/apache/sshd/server/SshServer")
                        || e.startsWith("org/apache/sshd/server/session/ServerSessionImpl")
                        || e.startsWith("org/apache/sshd/server/kex/")
                        || e.matches("org/apache/sshd/server/auth/.*/AcceptAll.*")
                        || e.startsWith("dev/postern/demo/")
                        || e.startsWith("dev/postern/fixtures/")
                        || e.startsWith("org/junit/"))
                .collect(Collectors.toList());
        assertEquals(List.of(), forbidden, "the gateway's jar ships no SSH server, demo or test code");
    }

    @Test
    void launcherPrintsTheVersionOfTheJarItRuns() throws Exception {
        Matcher m = RELEASE_JAR.matcher(releaseJar().getFileName().toString());
        assertTrue(m.matches());

        LauncherProcess p = LauncherProcess.run(List.of("--version"), new byte[0], dir, Map.of());

        assertEquals(0, p.exitStatus, p.describe());
        assertEquals("postern " + m.group(1), new String(p.stdout, StandardCharsets.UTF_8).strip(), p.describe());
    }
}
