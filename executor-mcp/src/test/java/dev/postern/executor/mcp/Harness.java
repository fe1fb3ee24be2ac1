package dev.postern.executor.mcp;

import dev.postern.policy.AuthorizedUpstreamCall;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.action.UpstreamCallAction;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.LiveTools.Listing;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.JsonCodec;
import dev.postern.policy.port.SchemaValidator;
import dev.postern.protocol.tools.StrictSchemaValidator;
import dev.postern.policy.port.Secret;
import dev.postern.policy.port.UpstreamReports;
import dev.postern.protocol.json.StrictJsonCodec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/** What the executor tests share: the fake's server config with pins, credentials, reports, listings, waiting. */
final class Harness {
    static final String SECRET = "s3cret-token-value";
    static final JsonCodec CODEC = new StrictJsonCodec(16 * 1024 * 1024);
    static final SchemaValidator SCHEMAS = new StrictSchemaValidator();

    /** One dropped line as the executor reported it. */
    record Report(String server, String reason, String sha256, long bytes) {
    }

    final List<Report> reports = java.util.Collections.synchronizedList(new ArrayList<>());
    final UpstreamReports sink = (server, reason, sha256, bytes) -> reports.add(new Report(server, reason, sha256, bytes));
    final List<Listing> listings = java.util.Collections.synchronizedList(new ArrayList<>());
    final ByteArrayOutputStream diagnosticsBytes = new ByteArrayOutputStream();
    final PrintStream diagnostics = new PrintStream(diagnosticsBytes, true, StandardCharsets.UTF_8);
    final Path dir;
    final Path log;

    Harness(Path dir) {
        this.dir = dir;
        this.log = dir.resolve("fake.log");
    }

    static String pin(String tool, boolean changed) {
        try {
            return Pins.of((JsonObject) CODEC.parse(FakeUpstream.definition(tool, changed)));
        } catch (JsonCodec.Malformed e) {
            throw new IllegalStateException(e);
        }
    }

    UpstreamServer server(String mode, Duration timeout, long maxResponseBytes) {
        return server(mode, timeout, maxResponseBytes, "fake-secret");
    }

    UpstreamServer server(String mode, Duration timeout, long maxResponseBytes, String credential) {
        List<UpstreamTool> tools = new ArrayList<>();
        for (String t : FakeUpstream.TOOLS) {
            tools.add(new UpstreamTool(t, pin(t, false), false, Map.of()));
        }
        LinkedHashMap<String, UpstreamServer.EnvValue> env = new LinkedHashMap<>();
        env.put("SECRET", new UpstreamServer.EnvValue.FromCredential(new CredentialRef(credential)));
        env.put("FAKE_LOG", new UpstreamServer.EnvValue.Literal(log.toString()));
        env.put("FAKE_PIDFILE", new UpstreamServer.EnvValue.Literal(dir.resolve("fake.pid").toString()));
        return new UpstreamServer("fake", FakeUpstream.command(mode), dir.toString(), env, Duration.ofSeconds(20), timeout,
                maxResponseBytes, tools, Optional.empty());
    }

    static CredentialStore credentials() {
        return new CredentialStore() {
            @Override
            public Secret resolve(CredentialRef ref) throws CredentialUnavailableException {
                if (ref.name().equals("fake-secret")) {
                    return Secret.of(SECRET);
                }
                throw new CredentialUnavailableException("no credential " + ref.name());
            }

            @Override
            public java.util.Set<Secret> all() {
                return java.util.Set.of(Secret.of(SECRET));
            }
        };
    }

    McpActionExecutor executor(UpstreamServer server) {
        return new McpActionExecutor(List.of(server), credentials(), CODEC, SCHEMAS, sink, diagnostics, "test");
    }

    McpActionExecutor started(UpstreamServer server) {
        McpActionExecutor e = executor(server);
        e.start((allowance, listing) -> listings.add(listing));
        waitFor("the server is listed", () -> lastListing() instanceof Listing.Listed);
        return e;
    }

    Listing lastListing() {
        synchronized (listings) {
            return listings.isEmpty() ? null : listings.get(listings.size() - 1);
        }
    }

    static AuthorizedUpstreamCall permit(UpstreamServer server, String tool, String arguments) {
        JsonObject args;
        try {
            args = (JsonObject) CODEC.parse(arguments);
        } catch (JsonCodec.Malformed e) {
            throw new IllegalArgumentException(e);
        }
        String pin = server.tool(tool).orElseThrow().pin();
        Decision d = new PolicyEngine(Policy.of(server)).decide(new UpstreamCallAction(server.name(), tool, args,
                Optional.of(new UpstreamCallAction.LiveDefinition(pin, new HashSet<>()))));
        if (d instanceof Decision.Permit p && p.permit() instanceof AuthorizedUpstreamCall call) {
            return call;
        }
        throw new AssertionError("the policy must permit " + tool + ", decided " + d);
    }

    /** The first text item of a result. */
    static String text(JsonObject result) {
        JsonValue content = result.get("content").orElseThrow();
        JsonObject first = (JsonObject) ((JsonValue.JsonArray) content).elements().get(0);
        return first.string("text").orElseThrow();
    }

    String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    String diagnostics() {
        return diagnosticsBytes.toString(StandardCharsets.UTF_8);
    }

    List<String> reasons() {
        synchronized (reports) {
            return reports.stream().map(Report::reason).toList();
        }
    }

    long fakePid() {
        try {
            return Long.parseLong(Files.readString(dir.resolve("fake.pid")).trim());
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits (up to 30 s, a bound for a stuck test, not a measure of speed) until {@code condition} holds. */
    static void waitFor(String what, BooleanSupplier condition) {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting until " + what);
            }
        }
    }
}
