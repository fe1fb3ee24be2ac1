package dev.postern.app;

import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import dev.postern.app.credentials.EnvironmentAndFileCredentialStore;
import dev.postern.app.journal.FileAuditJournal;
import dev.postern.executor.http.HttpActionExecutor;
import dev.postern.executor.ssh.SshActionExecutor;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.port.CredentialStore;
import dev.postern.protocol.mcp.McpServer;
import dev.postern.protocol.mcp.ServerInfo;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.transport.FrameReader;
import dev.postern.transport.FrameWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The composition root, read top to bottom: one method per adapter, wired by hand, no container.
 * This is the one place that knows every module.
 */
public final class Gateway {
    private Gateway() {
    }

    /** Runs {@code mcp-stdio} on a loaded, fully validated config until the session ends; returns the exit status. */
    public static ExitStatus serve(GatewayConfig config, InputStream in, OutputStream protocolOut, PrintStream diagnostics) {
        return serve(new ConfigLoader.Deferred(config, () -> { }), in, protocolOut, diagnostics);
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
        FileAuditJournal journal;
        try {
            journal = journal(config, diagnostics);
        } catch (IOException e) {
            // An invalid config is reported as such (status 4), as when it was checked before the journal.
            Optional<String> invalid = gate.problem();
            diagnostics.println(invalid.orElse("postern: cannot open the journal in " + config.journalDirectory() + ": " + e.getMessage()));
            return invalid.isPresent() ? ExitStatus.CONFIG_ERROR : ExitStatus.STARTUP_FAILED;
        }
        CredentialStore credentials = credentials(config);
        // Every frame but the first initialize waits here for the config check; an invalid config ends the
        // session on the reading thread before that frame is served (ConfigGate.Invalid, caught below).
        Supplier<ToolCatalog> checkedCatalog = () -> {
            gate.problem().ifPresent(message -> {
                throw new ConfigGate.Invalid(message);
            });
            return gate.catalog();
        };
        ExitStatus status;
        try (journal; Dispatcher dispatcher = dispatcher(config, credentials)) {
            StdioSession session = new StdioSession(
                    new McpServer(checkedCatalog, new ServerInfo("postern", Version.current()), config.maxFrameBytes()),
                    new PolicyEngine(config.policy()),
                    dispatcher,
                    journal,
                    new FrameReader(in, config.maxFrameBytes()),
                    new FrameWriter(gate.startingAfterFirstFlush(protocolOut)),
                    config.maxInFlight(),
                    diagnostics);
            session.onOutputBroken(() -> {
                journal.close();
                Runtime.getRuntime().halt(ExitStatus.OUTPUT_BROKEN.code());
            });
            // The reader may be blocked on stdin: end the process from the worker, journals flushed.
            session.onFatal(() -> {
                journal.close();
                Runtime.getRuntime().halt(ExitStatus.INTERNAL_ERROR.code());
            });
            try {
                status = session.run();
            } catch (ConfigGate.Invalid e) {
                status = ExitStatus.CONFIG_ERROR;
            }
        }
        // A session that ended after the initialize answer alone still ends with the config's verdict.
        Optional<String> invalid = gate.problem();
        invalid.ifPresent(diagnostics::println);
        return invalid.isPresent() ? ExitStatus.CONFIG_ERROR : status;
    }

    static FileAuditJournal journal(GatewayConfig config, PrintStream diagnostics) throws IOException {
        return FileAuditJournal.open(config.journalDirectory(), config.journalRotateBytes(), diagnostics);
    }

    static CredentialStore credentials(GatewayConfig config) {
        return new EnvironmentAndFileCredentialStore(config.credentials());
    }

    /**
     * Each executor is built on its first permit: a session that sends no SSH command never loads the
     * SSH client, and start-up (spawn to the initialize response) pays for neither.
     */
    static Dispatcher dispatcher(GatewayConfig config, CredentialStore credentials) {
        return Dispatcher.onFirstUse(List.of(
                Dispatcher.OnFirstUse.of(AuthorizedHttpRequest.class, () -> httpExecutor(credentials)),
                Dispatcher.OnFirstUse.of(AuthorizedSshCommand.class, () -> sshExecutor(config, credentials))));
    }

    static HttpActionExecutor httpExecutor(CredentialStore credentials) {
        return new HttpActionExecutor(credentials);
    }

    /** As many SSH sessions per host as calls can run at once; more could never be used. */
    static SshActionExecutor sshExecutor(GatewayConfig config, CredentialStore credentials) {
        return new SshActionExecutor(credentials, config.maxInFlight());
    }
}
