package dev.postern.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.check.HttpTargetCheck;
import dev.postern.app.check.KindCheck;
import dev.postern.app.check.SqlDatabaseCheck;
import dev.postern.app.check.SshHostCheck;
import dev.postern.app.check.UpstreamServerCheck;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import dev.postern.app.config.HttpSection;
import dev.postern.app.config.SqlSection;
import dev.postern.app.config.SshSection;
import dev.postern.app.config.UpstreamSection;
import dev.postern.app.credentials.EnvironmentAndFileCredentialStore;
import dev.postern.journal.ActionRows;
import dev.postern.journal.ChainVerifier;
import dev.postern.journal.CheckpointSigner;
import dev.postern.journal.FileAuditJournal;
import dev.postern.journal.JournalSettings;
import dev.postern.journal.SessionFacts;
import dev.postern.executor.http.HttpActionExecutor;
import dev.postern.executor.mcp.McpActionExecutor;
import dev.postern.executor.sql.SqlActionExecutor;
import dev.postern.executor.ssh.SshActionExecutor;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.RegistrationPoint;
import dev.postern.policy.action.Action;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.port.UpstreamReports;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.JournalObserver;
import dev.postern.policy.port.SecretMask;
import dev.postern.policy.port.Telemetry;
import dev.postern.protocol.mcp.CatalogRefused;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import dev.postern.protocol.approval.RequestStateCodec;
import dev.postern.protocol.mcp.McpServer;
import dev.postern.protocol.mcp.ServerInfo;
import dev.postern.protocol.tools.EffectKind;
import dev.postern.protocol.tools.EffectKinds;
import dev.postern.protocol.tools.HttpRequestKind;
import dev.postern.protocol.tools.SqlQueryKind;
import dev.postern.protocol.tools.SshExecKind;
import dev.postern.protocol.tools.StrictSchemaValidator;
import dev.postern.protocol.tools.UpstreamToolKind;
import dev.postern.protocol.json.StrictJsonCodec;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.protocol.tools.ToolResults;
import dev.postern.transport.FrameReader;
import dev.postern.transport.FrameWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The composition root, read top to bottom, wired by hand, no container. This is the one place that
 * knows every module, and {@link #KINDS} is the one place a kind of effect is registered.
 */
public final class Gateway {

    /**
     * The registration point: one line per kind of effect, its protocol description, its config section
     * (read into its allowances), how its executor is built (on the kind's first permit, so a session that
     * never calls SSH never starts an SSH client) and its deep checks. Everything that reads, presents,
     * routes or checks kinds (the config loader, tools, results, journal, explain, check-config) reads this list.
     */
    @RegistrationPoint("one line: the kind, its config section, its executor factory and its deep checks")
    static final List<Registration<?>> KINDS = List.of(
            Registration.of(new HttpRequestKind(), new HttpSection(), (config, credentials, around) -> new HttpActionExecutor(credentials),
                    new HttpTargetCheck()),
            // As many SSH sessions per host as calls can run at once; more could never be used.
            Registration.of(new SshExecKind(), new SshSection(),
                    (config, credentials, around) -> new SshActionExecutor(credentials, config.maxInFlight()), new SshHostCheck()),
            Registration.of(new SqlQueryKind(), new SqlSection(), (config, credentials, around) -> new SqlActionExecutor(credentials),
                    new SqlDatabaseCheck()),
            // One child process per upstream server, spoken to with the gateway's own strict JSON; it also lists their tools.
            Registration.discovering(new UpstreamToolKind(), new UpstreamSection(), (config, credentials, around) -> new McpActionExecutor(
                    config.policy().allowances(UpstreamServer.class), credentials, new StrictJsonCodec(config.maxFrameBytes()),
                    new StrictSchemaValidator(), around.reports(), around.diagnostics(), Version.current()),
                    new UpstreamServerCheck(config -> Gateway.listNow(config, System.err))));

    private static final EffectKinds EFFECT_KINDS =
            new EffectKinds(KINDS.stream().<EffectKind<?, ?, ?>>map(Registration::kind).toList());

    private static final ConfigLoader CONFIG_LOADER = ConfigLoader.of(KINDS.stream().map(Registration::section).toList());

    private Gateway() {
    }

    /** The registered kinds of effect, in registration order. */
    public static EffectKinds kinds() {
        return EFFECT_KINDS;
    }

    /** The config loader that reads every registered kind's section, in registration order. */
    public static ConfigLoader configLoader() {
        return CONFIG_LOADER;
    }

    /** The registered kinds' deep checks, in registration order, for {@code check-config --deep} and {@code mcp-stdio}'s start. */
    public static List<KindCheck> kindChecks() {
        return KINDS.stream().map(Registration::checks).toList();
    }

    /** Runs {@code mcp-stdio} on a loaded, fully validated config until the session ends; returns the exit status. */
    public static ExitStatus serve(GatewayConfig config, InputStream in, OutputStream protocolOut, PrintStream diagnostics) {
        return serve(new ConfigLoader.Deferred(config, () -> { }), in, protocolOut, diagnostics);
    }

    /**
     * Runs {@code mcp-stdio} on a config that could not be loaded: the client's first request is
     * answered with why ({@code CONFIG_INVALID}), and the status is {@link ExitStatus#CONFIG_ERROR}.
     */
    public static ExitStatus refuse(dev.postern.app.config.ConfigException invalid, InputStream in, OutputStream protocolOut,
            PrintStream diagnostics) {
        return ConfigRefusal.answer(invalid, in, protocolOut, diagnostics);
    }

    /**
     * Runs {@code mcp-stdio} on a built config whose schema validation is still to run: it runs in the
     * background while {@code initialize} is answered, and {@link ConfigGate} holds the first
     * {@code tools/list} or {@code tools/call} until it is done; an invalid config stops the process
     * with {@link ExitStatus#CONFIG_ERROR} before any tool is listed or called.
     */
    public static ExitStatus serve(ConfigLoader.Deferred deferred, InputStream in, OutputStream protocolOut, PrintStream diagnostics) {
        GatewayConfig config = deferred.config();
        ConfigGate gate = new ConfigGate(deferred);
        CredentialStore credentials = credentials(config);
        Optional<CheckpointSigner> signer;
        try {
            signer = checkpointSigner(config, credentials);
        } catch (CredentialUnavailableException | GeneralSecurityException e) {
            Optional<String> invalid = gate.problem();
            diagnostics.println(invalid.orElse("postern: journal.signingKey: "
                    + (e instanceof CredentialUnavailableException c ? c.detail() : e.getMessage()) + "; nothing started"));
            return invalid.isPresent() ? ExitStatus.CONFIG_ERROR : ExitStatus.STARTUP_FAILED;
        }
        // Telemetry first, so the journal's session start row is already a log record; it closes last, after the end row.
        try (Telemetry telemetry = telemetry(config, diagnostics)) {
            return serve(deferred, gate, config, signer, credentials, telemetry, in, protocolOut, diagnostics);
        }
    }

    private static ExitStatus serve(ConfigLoader.Deferred deferred, ConfigGate gate, GatewayConfig config, Optional<CheckpointSigner> signer,
            CredentialStore credentials, Telemetry telemetry, InputStream in, OutputStream protocolOut, PrintStream diagnostics) {
        FileAuditJournal journal;
        try {
            journal = journal(config, signer, credentials, telemetry.journal(), diagnostics);
        } catch (IOException e) {
            // An invalid config is reported as such (status 4), as when it was checked before the journal.
            Optional<String> invalid = gate.problem();
            diagnostics.println(invalid.orElse("postern: cannot open the journal in " + config.journalDirectory() + ": "
                    // The JDK's file exceptions say only the path; Postern's own IOExceptions say what is wrong.
                    + (e.getClass() == IOException.class ? "" : e.getClass().getSimpleName() + ": ") + e.getMessage()));
            return invalid.isPresent() ? ExitStatus.CONFIG_ERROR : ExitStatus.STARTUP_FAILED;
        }
        // Every frame but the first initialize waits here for the config check; an invalid config ends the
        // session on the reading thread before that frame is served, which is answered with why (ConfigGate.Invalid, a CatalogRefused, caught below).
        Supplier<ToolCatalog> checkedCatalog = () -> {
            gate.refusal().ifPresent(refused -> {
                throw refused;
            });
            return gate.catalog();
        };
        ExitStatus status;
        try (journal) {
            status = run(config, journal, List.of(), ToolResults.DEFAULT_MAX_RESULT_BYTES, checkedCatalog,
                    approvals(config, journal, Clock.systemUTC(), diagnostics), telemetry, in, gate.startingAfterFirstFlush(protocolOut), diagnostics, session -> {
                        session.onClient(c -> journal.sessionClient(c.name(), c.version(), c.era().name().toLowerCase(Locale.ROOT),
                                c.protocolVersion()));
                        session.onOutputBroken(() -> {
                            journal.sessionEnded(ExitStatus.OUTPUT_BROKEN.name(), dropped(config, telemetry));
                            journal.close();
                            Runtime.getRuntime().halt(ExitStatus.OUTPUT_BROKEN.code());
                        });
                        // The reader may be blocked on stdin: end the process from the worker, journals flushed.
                        session.onFatal(() -> {
                            journal.sessionEnded(ExitStatus.INTERNAL_ERROR.name(), dropped(config, telemetry));
                            journal.close();
                            Runtime.getRuntime().halt(ExitStatus.INTERNAL_ERROR.code());
                        });
                    }, Optional.of(inForce -> follow(inForce, gate, journal, diagnostics)));
            journal.sessionEnded(status.name(), dropped(config, telemetry));
        } catch (CatalogRefused e) {
            status = ExitStatus.CONFIG_ERROR;
        }
        // A session that ended after the initialize answer alone still ends with the config's verdict.
        Optional<String> invalid = gate.problem();
        invalid.ifPresent(diagnostics::println);
        return invalid.isPresent() ? ExitStatus.CONFIG_ERROR : status;
    }

    /**
     * One session over a journal the caller opened, with the registered kinds; each executor in
     * {@code substitutes} replaces the registered one for its permit type, and a tool result is capped
     * at {@code maxResultBytes} as rendered. Tests run the gateway through here, with recording
     * executors, and wire nothing of their own. {@code process} sets what the process does when the
     * output breaks or a fatal error strikes (the real gateway halts).
     */
    static ExitStatus run(GatewayConfig config, AuditJournal journal, List<ActionExecutor<?>> substitutes, long maxResultBytes,
            InputStream in, OutputStream protocolOut, PrintStream diagnostics, Consumer<StdioSession> process) {
        return run(config, journal, substitutes, maxResultBytes, approvals(config, journal, Clock.systemUTC(), diagnostics),
                in, protocolOut, diagnostics, process);
    }

    /** As above, with the approval step the caller built (tests: on a clock they move). */
    static ExitStatus run(GatewayConfig config, AuditJournal journal, List<ActionExecutor<?>> substitutes, long maxResultBytes,
            Approvals approvals, InputStream in, OutputStream protocolOut, PrintStream diagnostics, Consumer<StdioSession> process) {
        ToolCatalog catalog = catalog(config);
        return run(config, journal, substitutes, maxResultBytes, () -> catalog, approvals, in, protocolOut, diagnostics, process);
    }

    /**
     * The approval step: a fresh requestState key for this process, states living as long as a human
     * may take ({@code session.approvalTimeoutSeconds}), questions and answers in {@code journal}.
     */
    static Approvals approvals(GatewayConfig config, AuditJournal journal, Clock clock) {
        return approvals(config, journal, clock, System.err);
    }

    /**
     * As above, answered by the config's approval channels; where a rule may be answered locally, the
     * process's held actions, their loopback page (started at the first one) and their files for
     * {@code postern approvals} in the journal directory, with the one-line notice of each on {@code diagnostics}.
     */
    static Approvals approvals(GatewayConfig config, AuditJournal journal, Clock clock, PrintStream diagnostics) {
        LocalApprovals held = new LocalApprovals(clock);
        ApprovalPage page = new ApprovalPage(held, diagnostics);
        held.listen(page);
        ApprovalFiles.watch(held, config.journalDirectory(), diagnostics);
        return new Approvals(RequestStateCodec.withFreshKey(config.approvalTimeout(), clock, RequestStateCodec.DEFAULT_MAX_REDEEMED),
                config.approvalTimeout(), journal, config.approvalChannels(),
                Optional.of(new Approvals.Local(held, page, diagnostics)));
    }

    /**
     * As above, with the tool catalog the caller got from {@link #catalog} (a test that runs thousands
     * of sessions on one config builds it once) or, for {@code mcp-stdio}, from the config gate.
     */
    static ExitStatus run(GatewayConfig config, AuditJournal journal, List<ActionExecutor<?>> substitutes,
            long maxResultBytes, Supplier<ToolCatalog> catalog, Approvals approvals, InputStream in, OutputStream protocolOut,
            PrintStream diagnostics, Consumer<StdioSession> process) {
        try (Telemetry telemetry = telemetry(config, diagnostics)) {
            return run(config, journal, substitutes, maxResultBytes, catalog, approvals, telemetry, in, protocolOut, diagnostics, process,
                    Optional.empty());
        }
    }

    /**
     * As above, reporting to {@code telemetry}, which the caller opened (and observes {@code journal}
     * with, if it wants the rows as log records) and closes; when {@code reloads} is present the session
     * follows its config's edits: {@code initialize} announces {@code tools.listChanged}, and
     * {@code reloads} gets the policy in force once the session is wired, to start whatever replaces it
     * ({@link #serve}: a {@link ConfigWatcher}); it returns what to close when the session ends.
     */
    static ExitStatus run(GatewayConfig config, AuditJournal journal, List<ActionExecutor<?>> substitutes,
            long maxResultBytes, Supplier<ToolCatalog> catalog, Approvals approvals, Telemetry telemetry, InputStream in,
            OutputStream protocolOut, PrintStream diagnostics, Consumer<StdioSession> process,
            Optional<java.util.function.Function<PolicyInForce, AutoCloseable>> reloads) {
        // What an upstream sends that is not passed on: a decisions row, and a count in telemetry.
        UpstreamReports reports = (server, reason, sha256, bytes) -> {
            journal.dropped(server, reason, sha256, bytes);
            telemetry.upstreamDropped(server, reason);
        };
        try (Dispatcher dispatcher = dispatcher(config, credentials(config), substitutes,
                new Registration.Surroundings(reports, diagnostics));
                RateLimits rateLimits = RateLimits.shared(config.policy(), config.journalDirectory(), diagnostics)) {
            // Kinds whose tools only their servers know: their executors list them once the session serves.
            List<Registration<?>> discovering = KINDS.stream().filter(Registration::toolSource)
                    .filter(r -> !config.policy().allowances(r.kind().allowanceType()).isEmpty()).toList();
            List<Allowance> awaited = discovering.stream()
                    .<Allowance>flatMap(r -> config.policy().allowances(r.kind().allowanceType()).stream()).toList();
            LiveCatalog live = new LiveCatalog(catalog, awaited, startWait(config),
                    listener -> discovering.forEach(r -> dispatcher.startSource(r.kind().permitType(), listener)));
            McpServer mcp = new McpServer(live, new ServerInfo("postern", Version.current()), new McpServer.Limits(config.maxFrameBytes(), maxResultBytes));
            if (!awaited.isEmpty() || reloads.isPresent()) {
                mcp.announceListChanges();
            }
            mcp.observe(telemetry);
            PolicyInForce inForce = new PolicyInForce(config, rateLimits, live);
            StdioSession session = new StdioSession(
                    mcp,
                    ToolCallService.following(inForce::engine, rateLimits, journal, dispatcher, diagnostics, approvals),
                    journal,
                    new FrameReader(in, config.maxFrameBytes()),
                    new FrameWriter(protocolOut),
                    config.maxInFlight(),
                    diagnostics);
            live.onChange(() -> mcp.listChangedNotification().ifPresent(session::notifyClient));
            process.accept(session);
            AutoCloseable following = reloads.isPresent() ? reloads.get().apply(inForce) : () -> { };
            try {
                return session.run();
            } finally {
                try {
                    following.close();
                } catch (Exception e) {
                    diagnostics.println("postern: could not stop following the config: " + e);
                }
            }
        }
    }

    /** With a {@code telemetry} section, how many records telemetry has dropped so far, for the session's end row. */
    private static java.util.OptionalLong dropped(GatewayConfig config, Telemetry telemetry) {
        return config.telemetry().isPresent() ? java.util.OptionalLong.of(telemetry.dropped()) : java.util.OptionalLong.empty();
    }

    /**
     * Follows the config file's edits once the config in force has passed its check (an edit before
     * that is read at the watch's start): each settled change is decided by {@link ConfigReload}; a
     * valid version is journaled ({@code config-reloaded}, old and new SHA-256), said on stderr and
     * installed; a refused one gets one warning line and a {@code config-refused} row, and the policy
     * in force stays. A file whose directory cannot be watched is said once; the gateway runs on.
     */
    private static AutoCloseable follow(PolicyInForce inForce, ConfigGate gate, FileAuditJournal journal, PrintStream diagnostics) {
        java.util.concurrent.atomic.AtomicReference<AutoCloseable> watcher = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
        String[] lastSeen = {inForce.config().fileSha256()}; // only the watcher's one thread touches it
        gate.whenValid(() -> {
            Path file = inForce.config().file();
            try {
                ConfigWatcher w = ConfigWatcher.start(file, ConfigWatcher.DEBOUNCE, () -> {
                    GatewayConfig now = inForce.config();
                    ConfigReload.Verdict verdict = ConfigReload.decide(now, lastSeen[0], CONFIG_LOADER);
                    lastSeen[0] = verdict.sha256();
                    if (verdict instanceof ConfigReload.Verdict.Reload reload) {
                        journal.configReloaded(now.fileSha256(), reload.next().fileSha256());
                        inForce.install(reload.next());
                        diagnostics.println("postern: config " + file + " reloaded (sha256 " + now.fileSha256().substring(0, 12) + " -> "
                                + reload.next().fileSha256().substring(0, 12) + ")");
                    } else if (verdict instanceof ConfigReload.Verdict.Refuse refuse) {
                        diagnostics.println(refuse.warning(file));
                        journal.configRefused(refuse.sha256(), refuse.reason(), refuse.problem(), now.fileSha256());
                    }
                }, diagnostics);
                watcher.set(w);
                if (closed.get()) {
                    w.close();
                }
            } catch (IOException | RuntimeException e) {
                diagnostics.println("postern: config " + file + " cannot be watched (" + e.getMessage()
                        + "); edits take effect only when the gateway restarts");
            }
        });
        return () -> {
            closed.set(true);
            AutoCloseable w = watcher.get();
            if (w != null) {
                w.close();
            }
        };
    }

    /** Export of traces, metrics and logs when the config has a {@code telemetry} section; off (no adapter class loaded) otherwise. */
    static Telemetry telemetry(GatewayConfig config, PrintStream diagnostics) {
        return config.telemetry().isEmpty() ? Telemetry.OFF
                : TelemetryExport.start(config.telemetry().get(), credentials(config), diagnostics);
    }

    /**
     * How long the first frame after {@code initialize} may wait for run-time listings: the longest
     * {@code startTimeoutMs} of the upstream servers, and a second more, since each server's executor
     * reports it unavailable by then on its own.
     */
    static java.time.Duration startWait(GatewayConfig config) {
        return config.policy().allowances(UpstreamServer.class).stream().map(UpstreamServer::startTimeout)
                .max(java.time.Duration::compareTo).orElse(java.time.Duration.ZERO).plusSeconds(1);
    }

    /** The use case for {@code explain}: the policy decision and nothing after it. */
    public static ToolCallService explainer(GatewayConfig config) {
        return ToolCallService.explaining(policyEngine(config));
    }

    /** The tools the config offers, without run-time listings (every upstream tool withheld). */
    public static ToolCatalog catalog(GatewayConfig config) {
        return new ToolCatalog(kinds(), config.policy());
    }

    /**
     * The tools the config offers with what its run-time sources list now: each kind's executor that
     * lists tools is built, started, waited for (at most the servers' start timeouts) and closed; no tool
     * runs. For {@code explain}, {@code check-config --connect} and {@code upstream pin}.
     */
    public static LiveTools listNow(GatewayConfig config, PrintStream diagnostics) {
        LiveTools live = LiveTools.none();
        CredentialStore credentials = credentials(config);
        for (Registration<?> r : KINDS) {
            List<? extends Allowance> allowances = config.policy().allowances(r.kind().allowanceType());
            if (!r.toolSource() || allowances.isEmpty()) {
                continue;
            }
            // What an upstream sends that is not passed on is only said on stderr here: nothing is served.
            UpstreamReports toStderr = (server, reason, sha256, bytes) -> diagnostics.println("postern: upstream " + server
                    + ": dropped a line (" + reason + ", " + bytes + " bytes, sha256 " + sha256 + ")");
            try (ActionExecutor<?> executor = r.executor().build(config, credentials, new Registration.Surroundings(toStderr, diagnostics))) {
                LiveTools heard = UpstreamListings.collect(Registration.toolSource(executor), allowances, startWait(config));
                for (Allowance a : allowances) {
                    live = live.with(a, heard.of(a));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return live;
    }

    static PolicyEngine policyEngine(GatewayConfig config) {
        return new PolicyEngine(config.policy());
    }

    /** The journal for one session of this process: its settings from the config, a session row at each end. */
    static FileAuditJournal journal(GatewayConfig config, Optional<CheckpointSigner> signer, CredentialStore credentials,
            JournalObserver observer, PrintStream diagnostics) throws IOException {
        return FileAuditJournal.open(config.journalDirectory(), JournalSettings.rotatingAt(config.journalRotateBytes())
                .observedBy(observer)
                .withSigner(signer)
                .withSession(SessionFacts.of(config.file(), config.fileSha256(), Version.current()))
                .redactingArguments(config.journalRedactArguments())
                .masking(() -> SecretMask.of(credentials)), diagnostics, journalRows());
    }

    /**
     * The journal a test-wired session ({@link #run}) writes: the config's rotation and redaction,
     * credentials masked, but no session rows and no checkpoints (those belong to a gateway process).
     */
    static FileAuditJournal journal(GatewayConfig config, PrintStream diagnostics) throws IOException {
        return journal(config, JournalObserver.NONE, diagnostics);
    }

    /** As above, each row told to {@code observer} once written (a test's telemetry). */
    static FileAuditJournal journal(GatewayConfig config, JournalObserver observer, PrintStream diagnostics) throws IOException {
        CredentialStore credentials = credentials(config);
        return FileAuditJournal.open(config.journalDirectory(), JournalSettings.rotatingAt(config.journalRotateBytes())
                .observedBy(observer)
                .redactingArguments(config.journalRedactArguments())
                .masking(() -> SecretMask.of(credentials)), diagnostics, journalRows());
    }

    /**
     * The checkpoint signer when {@code journal.signingKey} is set, its key read once at start: a key
     * that cannot be read or is not Ed25519 stops start-up rather than leave the journal unsigned.
     */
    static Optional<CheckpointSigner> checkpointSigner(GatewayConfig config, CredentialStore credentials)
            throws CredentialUnavailableException, GeneralSecurityException {
        if (config.journalSigningKey().isEmpty()) {
            return Optional.empty();
        }
        CredentialRef ref = config.journalSigningKey().get();
        try {
            return Optional.of(CheckpointSigner.fromPem(credentials.resolve(ref).revealAsString()));
        } catch (GeneralSecurityException e) {
            throw new GeneralSecurityException("credential " + ref + ": " + e.getMessage());
        }
    }

    /** How the journal's rows describe each kind's permits, outcomes and refused actions: asked of the kind. */
    public static ActionRows journalRows() {
        return new ActionRows() {
            @Override
            public void intent(AuthorizedAction permit, ObjectNode row, boolean redactArguments) {
                kinds().journalIntent(permit, row, redactArguments);
            }

            @Override
            public void denial(Action action, ObjectNode row, boolean redactArguments) {
                kinds().journalDenial(action, row, redactArguments);
            }

            @Override
            public void outcome(Outcome outcome, ObjectNode row) {
                kinds().journalOutcome(outcome, row);
            }
        };
    }

    /** {@code audit verify}'s verifier, reading rows with the protocol's strict JSON parser. */
    public static ChainVerifier chainVerifier() {
        StrictJson strict = new StrictJson(ChainVerifier.MAX_ROW_BYTES);
        return new ChainVerifier(text -> {
            try {
                return strict.parse(text);
            } catch (JsonSyntaxError e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        });
    }

    static CredentialStore credentials(GatewayConfig config) {
        return new EnvironmentAndFileCredentialStore(config.credentials());
    }

    /**
     * One slot per registered kind; each executor is built on its kind's first permit. A substitute must
     * take the permits of exactly one registered kind, one substitute per kind.
     */
    static Dispatcher dispatcher(GatewayConfig config, CredentialStore credentials, List<ActionExecutor<?>> substitutes,
            Registration.Surroundings around) {
        for (ActionExecutor<?> substitute : substitutes) {
            long takers = KINDS.stream().filter(r -> r.kind().permitType().equals(substitute.permitType())).count();
            long twins = substitutes.stream().filter(s -> s.permitType().equals(substitute.permitType())).count();
            if (takers != 1 || twins != 1) {
                throw new IllegalArgumentException("a substitute executor for " + substitute.permitType().getSimpleName()
                        + " must replace exactly one registered kind's, and be the only one for it");
            }
        }
        return Dispatcher.onFirstUse(KINDS.stream().<Dispatcher.OnFirstUse<?>>map(registration -> {
            Registration<?> r = registration;
            for (ActionExecutor<?> substitute : substitutes) {
                r = r.withExecutor(substitute);
            }
            return r.slot(config, credentials, around);
        }).toList());
    }
}
