package dev.postern.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.config.GatewayConfig;
import dev.postern.app.credentials.EnvironmentAndFileCredentialStore;
import dev.postern.app.journal.ActionRows;
import dev.postern.app.journal.ChainVerifier;
import dev.postern.app.journal.FileAuditJournal;
import dev.postern.executor.http.HttpActionExecutor;
import dev.postern.executor.ssh.SshActionExecutor;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.RegistrationPoint;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.AuditJournal;
import dev.postern.policy.port.CredentialStore;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import dev.postern.protocol.mcp.McpServer;
import dev.postern.protocol.mcp.ServerInfo;
import dev.postern.protocol.tools.EffectKind;
import dev.postern.protocol.tools.EffectKinds;
import dev.postern.protocol.tools.HttpRequestKind;
import dev.postern.protocol.tools.SshExecKind;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.transport.FrameReader;
import dev.postern.transport.FrameWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;

/**
 * The composition root, read top to bottom, wired by hand, no container. This is the one place that
 * knows every module, and {@link #KINDS} is the one place a kind of effect is registered.
 */
public final class Gateway {

    /**
     * The registration point: one line per kind of effect, its protocol description and how its executor
     * is built (on the kind's first permit, so a session that never calls SSH never starts an SSH client).
     * Everything that presents or routes kinds (tools, results, journal, explain, check-config) reads this list.
     */
    @RegistrationPoint("one line: the kind and its executor factory")
    static final List<Registration<?>> KINDS = List.of(
            Registration.of(new HttpRequestKind(), (config, credentials) -> new HttpActionExecutor(credentials)),
            // As many SSH sessions per host as calls can run at once; more could never be used.
            Registration.of(new SshExecKind(), (config, credentials) -> new SshActionExecutor(credentials, config.maxInFlight())));

    private static final EffectKinds EFFECT_KINDS =
            new EffectKinds(KINDS.stream().<EffectKind<?, ?, ?>>map(Registration::kind).toList());

    private Gateway() {
    }

    /** The registered kinds of effect, in registration order. */
    public static EffectKinds kinds() {
        return EFFECT_KINDS;
    }

    /** Runs {@code mcp-stdio} on a loaded config until the session ends; returns the exit status. */
    public static ExitStatus serve(GatewayConfig config, InputStream in, OutputStream protocolOut, PrintStream diagnostics) {
        FileAuditJournal journal;
        try {
            journal = journal(config, diagnostics);
        } catch (IOException e) {
            diagnostics.println("postern: cannot open the journal in " + config.journalDirectory() + ": " + e.getMessage());
            return ExitStatus.STARTUP_FAILED;
        }
        try (journal) {
            return run(config, journal, List.of(), in, protocolOut, diagnostics, () -> {
                journal.close();
                Runtime.getRuntime().halt(ExitStatus.OUTPUT_BROKEN.code());
            });
        }
    }

    /**
     * One session over a journal the caller opened, with the registered kinds; each executor in
     * {@code substitutes} replaces the registered one for its permit type. Tests run the gateway through
     * here, with recording executors, and wire nothing of their own.
     */
    static ExitStatus run(GatewayConfig config, AuditJournal journal, List<ActionExecutor<?>> substitutes,
            InputStream in, OutputStream protocolOut, PrintStream diagnostics, Runnable onOutputBroken) {
        try (Dispatcher dispatcher = dispatcher(config, credentials(config), substitutes)) {
            StdioSession session = new StdioSession(
                    mcpServer(config),
                    ToolCallService.executing(policyEngine(config), journal, dispatcher, diagnostics),
                    journal,
                    new FrameReader(in, config.maxFrameBytes()),
                    new FrameWriter(protocolOut),
                    config.maxInFlight(),
                    diagnostics);
            session.onOutputBroken(onOutputBroken);
            return session.run();
        }
    }

    /** The use case for {@code explain}: the policy decision and nothing after it. */
    public static ToolCallService explainer(GatewayConfig config) {
        return ToolCallService.explaining(policyEngine(config));
    }

    /** The tools the config offers, for {@code explain}. */
    public static ToolCatalog catalog(GatewayConfig config) {
        return new ToolCatalog(kinds(), config.policy());
    }

    static PolicyEngine policyEngine(GatewayConfig config) {
        return new PolicyEngine(config.policy());
    }

    static McpServer mcpServer(GatewayConfig config) {
        return new McpServer(catalog(config), new ServerInfo("postern", Version.current()), config.maxFrameBytes());
    }

    static FileAuditJournal journal(GatewayConfig config, PrintStream diagnostics) throws IOException {
        return FileAuditJournal.open(config.journalDirectory(), diagnostics, journalRows());
    }

    /** How the journal's rows describe each kind's permits and outcomes: asked of the kind. */
    public static ActionRows journalRows() {
        return new ActionRows() {
            @Override
            public void intent(AuthorizedAction permit, ObjectNode row) {
                kinds().journalIntent(permit, row);
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
    static Dispatcher dispatcher(GatewayConfig config, CredentialStore credentials, List<ActionExecutor<?>> substitutes) {
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
            return r.slot(config, credentials);
        }).toList());
    }
}
