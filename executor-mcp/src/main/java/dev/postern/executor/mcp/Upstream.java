package dev.postern.executor.mcp;

import dev.postern.executor.mcp.Connection.Gone;
import dev.postern.executor.mcp.Connection.Response;
import dev.postern.policy.AuthorizedUpstreamCall;
import dev.postern.policy.json.JsonValue;
import dev.postern.policy.json.JsonValue.JsonArray;
import dev.postern.policy.json.JsonValue.JsonNumber;
import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.json.JsonValue.JsonString;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.LiveTools.Listing;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamServer.EnvValue;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.outcome.UpstreamCallOutcome;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.JsonCodec;
import dev.postern.policy.port.ProgressSink;
import dev.postern.policy.port.Secret;
import dev.postern.policy.port.SchemaValidator;
import dev.postern.policy.port.SecretMask;
import dev.postern.policy.port.UpstreamReports;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * One configured upstream server over the gateway's life: starts its child (minimal environment,
 * credentials resolved now, argv under {@code setpriv --pdeathsig KILL} where there is one), does the
 * client handshake and the paged {@code tools/list}, reports each listing, lists again on
 * {@code notifications/tools/list_changed}, calls its tools, and starts it again after it exited (at
 * the next call at once; after a failed start only once its back-off, 1 s doubling to 60 s, has
 * passed, and then by itself too, since a server listed unavailable gets no calls). Thread-safe.
 */
final class Upstream {
    /** The handshake revisions this client speaks, newest first; it asks for the first. */
    static final List<String> PROTOCOL_VERSIONS = List.of("2025-11-25", "2025-06-18", "2025-03-26");
    static final int MAX_PAGES = 100;
    static final int MAX_TOOLS = 1000;
    private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(60);

    private final UpstreamServer server;
    private final CredentialStore credentials;
    private final JsonCodec codec;
    private final SchemaValidator schemas;
    private final UpstreamReports reports;
    private final PrintStream diagnostics;
    private final String clientVersion;
    private final List<String> launcher;
    private final ExecutorService spawner;
    private final ScheduledExecutorService timers;
    /** Lists again after list_changed, one at a time; a change while one is queued adds nothing (bounded, coalescing). */
    private final ThreadPoolExecutor relister;

    private volatile BiConsumer<Allowance, Listing> listener = (a, l) -> { };
    /** Guarded by this. */
    private Connection connection;
    private CompletableFuture<Connection> starting;
    /** The child of the start under way, so that close can stop it mid-handshake. */
    private Connection launching;
    private long retryAtNanos;
    private int failures;
    private String downReason = "";
    private boolean closed;
    /** Each tool the server lists now, by name: its pin and output check, taken once per listing, used on every call. */
    private volatile Map<String, LiveTool> liveTools = Map.of();

    /**
     * A listed tool as a call needs it: its pin, and, for an allowlisted tool that declares an
     * {@code outputSchema}, the check its successful results' {@code structuredContent} must pass.
     */
    record LiveTool(String pin, Optional<SchemaValidator.Check> output) {
    }

    /** Why the server cannot take a call now, in words fit for the agent. */
    static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        Unavailable(String message) {
            super(message, null, false, false);
        }
    }

    Upstream(UpstreamServer server, CredentialStore credentials, JsonCodec codec, SchemaValidator schemas, UpstreamReports reports,
            PrintStream diagnostics, String clientVersion, List<String> launcher, ExecutorService spawner, ScheduledExecutorService timers) {
        this.server = server;
        this.credentials = credentials;
        this.codec = codec;
        this.schemas = schemas;
        this.reports = reports;
        this.diagnostics = diagnostics;
        this.clientVersion = clientVersion;
        this.launcher = launcher;
        this.spawner = spawner;
        this.timers = timers;
        this.relister = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1), r -> {
            Thread t = new Thread(r, "postern-upstream-" + server.name() + "-list");
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.DiscardPolicy());
        this.relister.allowCoreThreadTimeOut(true);
    }

    UpstreamServer server() {
        return server;
    }

    /** Starts the server in the background and reports its listings to {@code listener} from now on. */
    void start(BiConsumer<Allowance, Listing> listener) {
        this.listener = listener;
        synchronized (this) {
            if (closed || connection != null || starting != null) {
                return;
            }
            beginStart();
        }
    }

    /** Calls the permit's tool: the server running, the tool's live definition still the permit's pin. */
    Outcome call(AuthorizedUpstreamCall permit, Cancellation cancellation) {
        Connection c;
        try {
            c = ready(cancellation);
        } catch (Unavailable e) {
            return McpFailures.unavailable(e.getMessage());
        } catch (CancelledWaiting e) {
            return McpFailures.cancelledWhileStarting(server);
        }
        UpstreamTool tool = permit.tool();
        LiveTool live = liveTools.get(tool.name());
        if (live == null) {
            return McpFailures.toolGone(server);
        }
        if (!live.pin().equals(tool.pin())) {
            return McpFailures.pinChanged();
        }
        return new ToolCall(c, server, tool.name(), permit.arguments(), live.output(), cancellation, reports).run();
    }

    /** The wait for a start ended because the call was cancelled. */
    private static final class CancelledWaiting extends Exception {
        private static final long serialVersionUID = 1L;

        CancelledWaiting() {
            super(null, null, false, false);
        }
    }

    private Connection ready(Cancellation cancellation) throws Unavailable, CancelledWaiting {
        CompletableFuture<Connection> f;
        synchronized (this) {
            if (closed) {
                throw new Unavailable("the executor is closed; nothing was sent");
            }
            if (connection != null && !connection.isGone()) {
                return connection;
            }
            if (starting != null) {
                f = starting;
            } else {
                long wait = retryAtNanos - System.nanoTime();
                if (failures > 0 && wait > 0) {
                    throw new Unavailable("upstream " + server.name() + " is unavailable (" + downReason + "); it is tried again in "
                            + Math.max(1, TimeUnit.NANOSECONDS.toSeconds(wait + 999_999_999L)) + " s; nothing was sent");
                }
                f = beginStart();
            }
        }
        CompletableFuture<Object> cancelled = new CompletableFuture<>();
        cancellation.onCancel(() -> cancelled.complete(Boolean.TRUE));
        try {
            Object done = CompletableFuture.anyOf(f, cancelled)
                    .get(server.startTimeout().toMillis() + 2000, TimeUnit.MILLISECONDS);
            if (done instanceof Connection c) {
                return c;
            }
            throw new CancelledWaiting();
        } catch (ExecutionException e) {
            throw new Unavailable("upstream " + server.name() + " could not be started (" + e.getCause().getMessage()
                    + "); nothing was sent");
        } catch (TimeoutException e) {
            throw new Unavailable("upstream " + server.name() + " did not finish starting; nothing was sent");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("the call was interrupted while upstream " + server.name() + " was starting; nothing was sent");
        }
    }

    /** Guarded by this: begins one start on its own thread; its future completes with the ready connection. */
    private CompletableFuture<Connection> beginStart() {
        CompletableFuture<Connection> f = new CompletableFuture<>();
        starting = f;
        listener.accept(server, new Listing.Pending());
        Thread t = new Thread(() -> launch(f), "postern-upstream-" + server.name() + "-start");
        t.setDaemon(true);
        t.start();
        return f;
    }

    private void launch(CompletableFuture<Connection> f) {
        long deadline = System.nanoTime() + server.startTimeout().toNanos();
        Connection c = null;
        try {
            Map<String, String> env = environment();
            SecretMask mask = new SecretMask(secretsOf(env));
            Process process = spawn(env, mask);
            Connection[] self = new Connection[1];
            c = new Connection(server.name(), process, codec, reports, diagnostics, mask, server.maxResponseBytes(),
                    () -> relister.execute(() -> relist(self[0])), () -> gone(self[0]));
            self[0] = c;
            synchronized (this) {
                if (closed) {
                    c.stop();
                    throw new Unavailable("the executor is closed");
                }
                launching = c;
            }
            c.begin();
            handshake(c, deadline);
            List<JsonObject> tools = list(c, deadline);
            boolean ok;
            synchronized (this) {
                ok = !closed;
                launching = null;
                if (ok) {
                    connection = c;
                    starting = null;
                    failures = 0;
                    liveTools = live(tools);
                }
            }
            if (!ok) {
                c.stop();
                f.completeExceptionally(new Unavailable("the executor is closed"));
                return;
            }
            listener.accept(server, new Listing.Listed(tools));
            f.complete(c);
        } catch (Unavailable e) {
            if (c != null) {
                c.stop();
            }
            failed(f, e.getMessage());
        } catch (RuntimeException e) {
            if (c != null) {
                c.stop();
            }
            diagnostics.println("postern: upstream " + server.name() + ": starting failed: " + e);
            failed(f, "starting it failed");
        }
    }

    private void failed(CompletableFuture<Connection> f, String reason) {
        long delay;
        boolean isClosed;
        synchronized (this) {
            starting = null;
            launching = null;
            failures++;
            delay = backoff(failures).toNanos();
            retryAtNanos = System.nanoTime() + delay;
            downReason = reason;
            isClosed = closed;
        }
        diagnostics.println("postern: upstream " + server.name() + ": unavailable: " + reason + "; tried again in "
                + TimeUnit.NANOSECONDS.toSeconds(delay) + " s or at the next call after that");
        if (!isClosed) {
            listener.accept(server, new Listing.Unavailable(reason));
            try {
                timers.schedule(this::retry, delay, TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // Closing: no retry.
            }
        }
        f.completeExceptionally(new Unavailable(reason));
    }

    static Duration backoff(int failures) {
        long seconds = FIRST_BACKOFF.toSeconds() << Math.min(failures - 1, 6);
        return Duration.ofSeconds(Math.min(seconds, MAX_BACKOFF.toSeconds()));
    }

    /** After a failed start's back-off: start again, unless a call did already. */
    private void retry() {
        synchronized (this) {
            if (closed || starting != null || (connection != null && !connection.isGone())) {
                return;
            }
            beginStart();
        }
    }

    /** The child exited or its stdout broke: the next call starts it again (pending calls already failed). */
    private void gone(Connection c) {
        synchronized (this) {
            if (connection != c) {
                return;
            }
            connection = null;
        }
        diagnostics.println("postern: upstream " + server.name() + ": exited (exit status "
                + c.exitStatus().map(String::valueOf).orElse("unknown") + "); it is started again at the next call");
        c.stop();
    }

    private void relist(Connection c) {
        if (c == null || c.isGone()) {
            return;
        }
        try {
            List<JsonObject> tools = list(c, System.nanoTime() + server.startTimeout().toNanos());
            synchronized (this) {
                if (connection != c) {
                    return;
                }
                liveTools = live(tools);
            }
            listener.accept(server, new Listing.Listed(tools));
        } catch (Unavailable e) {
            diagnostics.println("postern: upstream " + server.name() + ": listing its tools again failed: " + e.getMessage()
                    + "; it is stopped and started again");
            c.stop();
            boolean restart;
            synchronized (this) {
                restart = !closed && starting == null;
                if (restart) {
                    beginStart();
                }
            }
        }
    }

    /** Each listed tool's pin, and the compiled output schema of each allowlisted one that declares one. */
    private Map<String, LiveTool> live(List<JsonObject> tools) {
        LinkedHashMap<String, LiveTool> byName = new LinkedHashMap<>();
        for (JsonObject t : tools) {
            String name = t.string("name").orElseThrow();
            Optional<SchemaValidator.Check> output = Optional.empty();
            Optional<JsonValue> schema = t.get("outputSchema");
            if (schema.isPresent() && server.tool(name).isPresent()) {
                output = Optional.of(schema.get() instanceof JsonObject o ? schemas.compile(o)
                        : value -> Optional.of("the tool's outputSchema is not an object"));
            }
            byName.put(name, new LiveTool(Pins.of(t), output));
        }
        return java.util.Collections.unmodifiableMap(byName);
    }

    private Map<String, String> environment() throws Unavailable {
        LinkedHashMap<String, String> env = new LinkedHashMap<>();
        Map<String, String> own = System.getenv();
        for (String name : UpstreamServer.INHERITED_ENV) {
            if (own.containsKey(name)) {
                env.put(name, own.get(name));
            }
        }
        for (Map.Entry<String, EnvValue> e : server.env().entrySet()) {
            if (e.getValue() instanceof EnvValue.Literal l) {
                env.put(e.getKey(), l.value());
            } else {
                CredentialRef ref = ((EnvValue.FromCredential) e.getValue()).credential();
                try {
                    String value = credentials.resolve(ref).revealAsString();
                    if (value.indexOf('\0') >= 0) {
                        throw new Unavailable("credential " + ref.name() + " holds a NUL character, which no environment variable can");
                    }
                    env.put(e.getKey(), value);
                } catch (CredentialUnavailableException ex) {
                    throw new Unavailable("credential " + ref.name() + " for its environment could not be read");
                }
            }
        }
        return env;
    }

    private List<byte[]> secretsOf(Map<String, String> env) {
        List<byte[]> secrets = new ArrayList<>();
        for (Map.Entry<String, EnvValue> e : server.env().entrySet()) {
            if (e.getValue() instanceof EnvValue.FromCredential) {
                secrets.add(env.get(e.getKey()).getBytes(StandardCharsets.UTF_8));
            }
        }
        return secrets;
    }

    /**
     * Starts the child on the executor's one long-lived spawner thread: Linux sends the
     * {@code --pdeathsig} signal when the thread that forked the child ends, not only the process, so
     * a short-lived thread would kill the child with it.
     */
    private Process spawn(Map<String, String> env, SecretMask mask) throws Unavailable {
        List<String> argv = new ArrayList<>(launcher);
        argv.addAll(server.command());
        ProcessBuilder pb = new ProcessBuilder(argv).directory(new File(server.cwd()));
        pb.environment().clear();
        pb.environment().putAll(env);
        try {
            return spawner.submit(pb::start).get();
        } catch (ExecutionException e) {
            diagnostics.println("postern: upstream " + server.name() + ": could not start its command: "
                    + mask.mask(String.valueOf(e.getCause().getMessage())));
            throw new Unavailable("its command could not be started (the gateway's stderr says why)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("starting it was interrupted");
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new Unavailable("the executor is closed");
        }
    }

    private void handshake(Connection c, long deadline) throws Unavailable {
        LinkedHashMap<String, JsonValue> info = new LinkedHashMap<>();
        info.put("name", new JsonString("postern"));
        info.put("version", new JsonString(clientVersion));
        LinkedHashMap<String, JsonValue> members = new LinkedHashMap<>();
        members.put("protocolVersion", new JsonString(PROTOCOL_VERSIONS.get(0)));
        // No client capabilities: a compliant upstream then never asks for sampling, elicitation or roots.
        members.put("capabilities", JsonObject.empty());
        members.put("clientInfo", new JsonObject(info));
        JsonObject params = new JsonObject(members);
        Response r = exchange(c, "initialize", Optional.of(params), deadline, "its initialize");
        JsonObject result = result(r, "initialize");
        Optional<String> version = result.string("protocolVersion");
        if (version.isEmpty()) {
            reports.dropped(server.name(), "shape", r.sha256(), r.bytes());
            throw new Unavailable("its initialize result names no protocol version");
        }
        if (!PROTOCOL_VERSIONS.contains(version.get())) {
            throw new Unavailable("it speaks MCP protocol version \"" + StderrPump.printable(clip(version.get())) + "\", which postern does not ("
                    + String.join(", ", PROTOCOL_VERSIONS) + ")");
        }
        try {
            c.notifyUpstream("notifications/initialized", Optional.empty());
        } catch (IOException e) {
            throw new Unavailable("it exited during its handshake");
        }
    }

    /** Every page of {@code tools/list}, within {@link #MAX_PAGES} and {@link #MAX_TOOLS}; each definition an object with a unique name. */
    private List<JsonObject> list(Connection c, long deadline) throws Unavailable {
        List<JsonObject> tools = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Optional<String> cursor = Optional.empty();
        for (int page = 0; page < MAX_PAGES; page++) {
            Optional<JsonObject> params = cursor.map(k -> new JsonObject(Map.of("cursor", new JsonString(k))));
            Response r = exchange(c, "tools/list", params, deadline, "its tools/list");
            JsonObject result = result(r, "tools/list");
            Optional<JsonValue> list = result.get("tools");
            if (list.isEmpty() || !(list.get() instanceof JsonArray array)) {
                throw shape(r, "its tools/list result has no tools array");
            }
            for (JsonValue t : array.elements()) {
                if (!(t instanceof JsonObject def) || def.string("name").isEmpty()) {
                    throw shape(r, "its tools/list holds a tool that is not an object with a name");
                }
                if (!names.add(def.string("name").get())) {
                    throw shape(r, "its tools/list names one tool twice");
                }
                tools.add(def);
            }
            if (tools.size() > MAX_TOOLS) {
                throw new Unavailable("it lists more than " + MAX_TOOLS + " tools");
            }
            Optional<JsonValue> next = result.get("nextCursor");
            if (next.isEmpty()) {
                checkPins(tools);
                return tools;
            }
            if (!(next.get() instanceof JsonString s)) {
                throw shape(r, "its tools/list nextCursor is not a string");
            }
            cursor = Optional.of(s.value());
        }
        throw new Unavailable("its tools/list has more than " + MAX_PAGES + " pages");
    }

    /** Reports each allowlisted tool whose live definition no longer matches its pin (stage upstream, reason pin). */
    private void checkPins(List<JsonObject> tools) {
        for (JsonObject def : tools) {
            Optional<UpstreamTool> allowed = server.tool(def.string("name").orElseThrow());
            if (allowed.isPresent()) {
                String pin = Pins.of(def);
                if (!pin.equals(allowed.get().pin())) {
                    String canonical = def.only(Pins.PINNED_MEMBERS).canonical();
                    reports.dropped(server.name(), "pin", pin.substring("sha256:".length()),
                            canonical.getBytes(StandardCharsets.UTF_8).length);
                    diagnostics.println("postern: upstream " + server.name() + ": tool " + allowed.get().name()
                            + " no longer matches its pin (live " + pin + "); it is withheld");
                }
            }
        }
    }

    private Unavailable shape(Response r, String why) {
        reports.dropped(server.name(), "shape", r.sha256(), r.bytes());
        return new Unavailable(why);
    }

    private Response exchange(Connection c, String method, Optional<JsonObject> params, long deadline, String what) throws Unavailable {
        CompletableFuture<Response> f;
        try {
            f = c.request(method, params);
        } catch (Gone | IOException e) {
            throw new Unavailable("it exited before " + what);
        }
        try {
            Optional<Response> r = Connection.await(f, deadline);
            if (r.isEmpty()) {
                throw new Unavailable("it did not answer " + what + " within " + server.startTimeout().toMillis() + " ms");
            }
            return r.get();
        } catch (Gone e) {
            throw new Unavailable("it exited before it answered " + what);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("starting it was interrupted");
        }
    }

    private JsonObject result(Response r, String method) throws Unavailable {
        Optional<JsonObject> error = r.message().object("error");
        if (error.isPresent() || r.message().get("error").isPresent()) {
            String code = error.flatMap(e -> e.get("code")).filter(JsonNumber.class::isInstance).map(JsonValue::canonical).orElse("?");
            throw new Unavailable("it answered " + method + " with JSON-RPC error " + code);
        }
        Optional<JsonObject> result = r.message().object("result");
        if (result.isEmpty()) {
            throw shape(r, "its " + method + " result is not an object");
        }
        return result.get();
    }

    private static String clip(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }

    /** Stops the child, if one runs, and refuses calls from now on. */
    void close() {
        Connection c;
        Connection l;
        synchronized (this) {
            closed = true;
            c = connection;
            l = launching;
            connection = null;
        }
        relister.shutdownNow();
        if (c != null) {
            c.stop();
        }
        if (l != null) {
            l.stop();
        }
    }

    /** The running child's pid, for tests. */
    synchronized Optional<Long> pid() {
        return connection == null || connection.isGone() ? Optional.empty() : Optional.of(connection.pid());
    }
}
