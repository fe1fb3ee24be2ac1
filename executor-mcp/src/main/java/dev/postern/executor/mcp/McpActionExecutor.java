package dev.postern.executor.mcp;

import dev.postern.policy.AuthorizedUpstreamCall;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.JsonCodec;
import dev.postern.policy.port.SchemaValidator;
import dev.postern.policy.port.ToolSource;
import dev.postern.policy.port.UpstreamReports;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

/**
 * Calls the tools of the operator's own stdio MCP servers (DESIGN §7, "Upstream MCP"), and finds
 * them: one child process per configured server, started by {@link #start}, spoken to as a strict
 * MCP client with no client capabilities; its stdout judged by the gateway's own framing and JSON
 * rules (what fails them is dropped and reported to {@link UpstreamReports}, never answered), its
 * stderr copied to {@code diagnostics} prefixed, masked and capped. A call is sent only while the
 * tool's live definition still has the permit's pin; its result is checked (a {@code CallToolResult};
 * a success's {@code structuredContent} valid against the pinned {@code outputSchema}), capped and masked
 * against the server's credentials. A server that exits is started again at the next call; one that cannot
 * start, after its back-off.
 *
 * <p>Children die with the gateway: on Linux each is started under {@code setpriv --pdeathsig KILL}
 * (util-linux), so the kernel kills it even when the gateway is killed with SIGKILL; where
 * {@code setpriv} is missing (not Linux, or a system without util-linux) a child only sees its stdin
 * close when the gateway dies, which a well-behaved MCP server takes as the end, and
 * {@link #close()} stops every child and its descendants. Thread-safe; concurrent calls to one server
 * share its process, multiplexed by request id.
 */
public final class McpActionExecutor implements ActionExecutor<AuthorizedUpstreamCall>, ToolSource {
    private static final List<String> SETPRIV_PLACES = List.of("/usr/bin/setpriv", "/bin/setpriv");

    private final Map<String, Upstream> upstreams = new LinkedHashMap<>();
    private final ExecutorService spawner;
    private final ScheduledExecutorService timers;
    private final PrintStream diagnostics;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param servers       the configured upstream servers; none is started until {@link #start}
     * @param credentials   resolves the credentials a server's environment names, at each start
     * @param codec         the gateway's strict JSON parser and writer
     * @param schemas       the gateway's schema validator, for results against a tool's pinned {@code outputSchema}
     * @param reports       where dropped upstream lines go (the decisions journal, stage upstream)
     * @param diagnostics   the gateway's stderr: upstream stderr lines, exits, restarts, masked
     * @param clientVersion Postern's version, sent in {@code clientInfo}
     */
    public McpActionExecutor(List<UpstreamServer> servers, CredentialStore credentials, JsonCodec codec, SchemaValidator schemas,
            UpstreamReports reports, PrintStream diagnostics, String clientVersion) {
        Objects.requireNonNull(servers, "servers");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(schemas, "schemas");
        Objects.requireNonNull(reports, "reports");
        this.diagnostics = Objects.requireNonNull(diagnostics, "diagnostics");
        Objects.requireNonNull(clientVersion, "clientVersion");
        this.spawner = Executors.newSingleThreadExecutor(r -> daemon(r, "postern-upstream-spawner"));
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "postern-upstream-retry"));
        List<String> launcher = launcher();
        for (UpstreamServer s : servers) {
            if (upstreams.put(s.name(), new Upstream(s, credentials, codec, schemas, reports, diagnostics, clientVersion, launcher, spawner,
                    timers)) != null) {
                throw new IllegalArgumentException("upstream server " + s.name() + " is configured twice");
            }
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** {@code setpriv --pdeathsig KILL --} on Linux where util-linux's setpriv is installed; else nothing. */
    static List<String> launcher() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return List.of();
        }
        Optional<String> setpriv = SETPRIV_PLACES.stream().filter(p -> Files.isExecutable(Path.of(p))).findFirst();
        return setpriv.map(p -> List.of(p, "--pdeathsig", "KILL", "--")).orElse(List.of());
    }

    @Override
    public Class<AuthorizedUpstreamCall> permitType() {
        return AuthorizedUpstreamCall.class;
    }

    @Override
    public void start(BiConsumer<Allowance, LiveTools.Listing> listener) {
        Objects.requireNonNull(listener, "listener");
        if (closed.get()) {
            return;
        }
        upstreams.values().forEach(u -> u.start(listener));
    }

    @Override
    public Outcome execute(AuthorizedUpstreamCall permit, Cancellation cancellation) {
        if (closed.get()) {
            return McpFailures.closed();
        }
        Upstream u = upstreams.get(permit.server().name());
        if (u == null || !u.server().equals(permit.server())) {
            return McpFailures.notConfigured(permit.server().name());
        }
        return u.call(permit, cancellation);
    }

    /** The pid of the running child of {@code server}, if one runs; for tests of the process lifecycle. */
    Optional<Long> pidOf(String server) {
        Upstream u = upstreams.get(server);
        return u == null ? Optional.empty() : u.pid();
    }

    /** Stops every child (stdin closed, a short grace, SIGTERM, SIGKILL, its descendants too); later calls fail. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        timers.shutdownNow();
        upstreams.values().parallelStream().forEach(Upstream::close);
        spawner.shutdownNow();
    }
}
