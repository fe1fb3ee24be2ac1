package dev.postern.app;

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

/**
 * The composition root, read top to bottom: one method per adapter, wired by hand, no container.
 * This is the one place that knows every module.
 */
public final class Gateway {
    private Gateway() {
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
        CredentialStore credentials = credentials(config);
        try (journal; Dispatcher dispatcher = dispatcher(config, credentials)) {
            StdioSession session = new StdioSession(
                    mcpServer(config),
                    new PolicyEngine(config.policy()),
                    dispatcher,
                    journal,
                    new FrameReader(in, config.maxFrameBytes()),
                    new FrameWriter(protocolOut),
                    config.maxInFlight(),
                    diagnostics);
            session.onOutputBroken(() -> {
                journal.close();
                Runtime.getRuntime().halt(ExitStatus.OUTPUT_BROKEN.code());
            });
            return session.run();
        }
    }

    static McpServer mcpServer(GatewayConfig config) {
        return new McpServer(new ToolCatalog(config.policy()), new ServerInfo("postern", Version.current()), config.maxFrameBytes());
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
