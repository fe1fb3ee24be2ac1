package dev.postern.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.postern.fixtures.FakeHttpService;
import dev.postern.fixtures.GatewayProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What every interop test needs: a {@link FakeHttpService} with routes under {@code /v1}, a
 * config allowing GET under {@code /v1} on it and POST only with a human's approval ({@code confirm}),
 * and a one-file server command for the client to
 * spawn ({@code server.sh}) that runs the packaged {@code bin/postern mcp-stdio} and records its
 * exit status and stderr beside it. The wrapper's stdin and stdout are the client's, so the
 * gateway speaks to the client directly, unless the gateway was started {@link #startRecordingRequests recording}
 * (or {@link #startWithUpstreams with upstream MCP servers}):
 * then the wrapper also copies every byte the client sends into {@code client-requests.jsonl}, so a
 * test can say which era the client spoke. Not thread-safe.
 */
final class PackagedGateway implements AutoCloseable {
    final FakeHttpService http;
    final Path dir;
    final Path serverCommand;
    private final Path exitStatus;
    private final Path stderr;
    private final Path requests;

    private PackagedGateway(FakeHttpService http, Path dir, boolean recordRequests, Optional<PinnedUpstreams> upstreams)
            throws IOException {
        this(http, dir, recordRequests, upstreams, Optional.empty());
    }

    private PackagedGateway(FakeHttpService http, Path dir, boolean recordRequests, Optional<PinnedUpstreams> upstreams,
            Optional<String> typedTool) throws IOException {
        this(http, dir, recordRequests, upstreams, typedTool, Optional.empty(), Optional.empty());
    }

    private PackagedGateway(FakeHttpService http, Path dir, boolean recordRequests, Optional<PinnedUpstreams> upstreams,
            Optional<String> typedTool, Optional<String> session, Optional<java.net.URI> telemetry) throws IOException {
        this.http = http;
        this.dir = dir;
        this.exitStatus = dir.resolve("exit-status");
        this.stderr = dir.resolve("server-stderr.log");
        this.requests = dir.resolve("client-requests.jsonl");
        Path config = dir.resolve("postern.json");
        String telemetrySection = "";
        if (telemetry.isPresent()) {
            Path token = dir.resolve("otel-token");
            Files.writeString(token, "Bearer " + OTEL_SECRET + "\n", StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
            // Every signal; the journal's rows as logs, so redacted; the target sends its trace context.
            telemetrySection = """
                    ,
                      "credentials": { "otel-token": { "file": "%s" } },
                      "telemetry": { "endpoint": "%s", "headers": { "Authorization": { "credential": "otel-token" } },
                        "serviceName": "postern-interop", "signals": ["traces", "metrics", "logs"], "timeoutMs": 2000, "maxQueue": 256 }"""
                    .formatted(token, telemetry.get());
        }
        Files.writeString(config, """
                {%s
                  "journal": { "directory": "journal"%s },
                  "http": { "targets": [
                    { "name": "loopback", "baseUrl": "%s", "methods": ["GET", "POST"], "confirm": ["POST"],
                      "pathPrefixes": ["/v1"], "allowPrivateAddresses": true, "timeoutMs": 5000%s } ] }%s%s
                }
                """.formatted(session.map(j -> "\n  \"session\": " + j + ",").orElse(""),
                        telemetry.isPresent() ? ", \"redactArguments\": true" : "", http.baseUri(),
                        typedTool.map(t -> ", \"tool\": \"" + t + "\"").orElse("") + (telemetry.isPresent() ? ", \"propagateTraceContext\": true" : ""),
                        upstreams.isEmpty() ? "" : ",\n  \"mcp\": " + new ObjectMapper().writeValueAsString(upstreams.get().mcpSection()),
                        telemetrySection),
                StandardCharsets.UTF_8);
        serverCommand = dir.resolve("server.sh");
        Files.writeString(serverCommand, String.join("\n",
                "#!/bin/sh",
                "# A client's SIGTERM to this wrapper (the Java SDK sends one right after closing stdin) waits for",
                "# the gateway, which got no signal and ends on end of input; its own exit status is recorded.",
                "trap ':' TERM",
                (recordRequests ? "tee -a '" + requests + "' | " : "")
                        + "'" + launcher() + "' mcp-stdio --config '" + config + "' 2>>'" + stderr + "'",
                "echo $? > '" + exitStatus + "'",
                ""), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(serverCommand, PosixFilePermissions.fromString("rwx------"));
    }

    static PackagedGateway start(Path dir) throws IOException {
        return new PackagedGateway(service(), dir, false, Optional.empty());
    }

    /** As {@link #start}, and the wrapper records what the client sends (see {@link #clientRequests()}). */
    static PackagedGateway startRecordingRequests(Path dir) throws IOException {
        return new PackagedGateway(service(), dir, true, Optional.empty());
    }

    /**
     * As {@link #startRecordingRequests}, with {@code upstreams} in the config's {@code mcp.servers}
     * as well: the client also sees their allowlisted tools.
     */
    static PackagedGateway startWithUpstreams(Path dir, PinnedUpstreams upstreams) throws IOException {
        return new PackagedGateway(service(), dir, true, Optional.of(upstreams));
    }

    /** The telemetry header's credential in a gateway started {@link #startWithTelemetry with telemetry}: it must reach nothing but that header. */
    static final String OTEL_SECRET = "otel-S3CRET-interop-9d41";

    /**
     * As {@link #startRecordingRequests} (with {@code upstreams} if present), exporting every signal to
     * {@code endpoint} with a credential header, the journal redacting arguments, and the target
     * propagating trace context.
     */
    static PackagedGateway startWithTelemetry(Path dir, Optional<PinnedUpstreams> upstreams, java.net.URI endpoint) throws IOException {
        return new PackagedGateway(service(), dir, true, upstreams, Optional.empty(), Optional.empty(), Optional.of(endpoint));
    }

    /** As {@link #start}, the target also offered as a typed tool of its own named {@code tool}. */
    static PackagedGateway startWithTypedTool(Path dir, String tool) throws IOException {
        return new PackagedGateway(service(), dir, false, Optional.empty(), Optional.of(tool));
    }

    /** As {@link #start}, with {@code session} (a JSON object) as the config's {@code session} section. */
    static PackagedGateway startWithSession(Path dir, String session) throws IOException {
        return new PackagedGateway(service(), dir, false, Optional.empty(), Optional.empty(), Optional.of(session), Optional.empty());
    }

    /** The gateway's stderr so far (the client's server log). */
    Path stderrFile() {
        return stderr;
    }

    private static FakeHttpService service() {
        FakeHttpService http = FakeHttpService.start();
        http.respond("/v1/hello", 200, Map.of("Content-Type", "text/plain"), "hello from loopback".getBytes(StandardCharsets.UTF_8));
        http.respond("/v1/approve-me", 201, Map.of("Content-Type", "text/plain"), "approved and done".getBytes(StandardCharsets.UTF_8));
        http.respond("/v1/decline-me", 201, Map.of("Content-Type", "text/plain"), "must never run".getBytes(StandardCharsets.UTF_8));
        return http;
    }

    /** Every JSON line the client sent, in order; only for a gateway started recording, after it exited. */
    List<JsonNode> clientRequests() throws IOException {
        if (!Files.exists(requests)) {
            throw new AssertionError("no client requests were recorded at " + requests);
        }
        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(requests, StandardCharsets.UTF_8)) {
            lines.add(mapper.readTree(line));
        }
        return lines;
    }

    String allowedUrl() {
        return http.baseUri() + "/v1/hello";
    }

    /** How many requests the service got for {@code method} {@code path}. */
    long requestsTo(String method, String path) {
        return http.requests().stream().filter(r -> r.method().equals(method) && r.path().equals(path)).count();
    }

    String deniedUrl() {
        return http.baseUri() + "/admin/marker-denied";
    }

    /** The gateway's exit status once it has exited, waiting up to {@code wait}; fails if it has not. */
    int awaitExitStatus(Duration wait) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(wait);
        while (Instant.now().isBefore(deadline)) {
            if (Files.exists(exitStatus)) {
                String text = Files.readString(exitStatus, StandardCharsets.UTF_8).strip();
                if (!text.isEmpty()) {
                    return Integer.parseInt(text);
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the gateway did not exit within " + wait + "\n" + stderrText());
    }

    String stderrText() {
        try {
            return "gateway stderr:\n" + (Files.exists(stderr) ? Files.readString(stderr, StandardCharsets.UTF_8) : "(none)");
        } catch (IOException e) {
            return "gateway stderr unreadable: " + e;
        }
    }

    /** The packaged launcher, {@code bin/postern} at the repository root; the reactor packaged its jar before this module. */
    static Path launcher() {
        return GatewayProcess.launcher();
    }

    static Path repositoryRoot() {
        return launcher().getParent().getParent();
    }

    @Override
    public void close() {
        http.close();
    }
}
