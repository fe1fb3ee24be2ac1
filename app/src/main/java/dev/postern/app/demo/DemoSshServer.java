package dev.postern.app.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;

/**
 * The demo's SSH server on MINA's {@link SshServer}, 127.0.0.1 and a port the system chose. It runs
 * no shell and no program: each exec command line gets a canned answer (exit 127 for a line it does
 * not know), and every exec request is counted. It accepts one generated client key, compared key
 * by key; no password, no keyboard-interactive. Host and client keys are ECDSA P-256 made in memory.
 * Thread-safe.
 */
final class DemoSshServer implements AutoCloseable {
    /** Canned answers by command line, exactly as the SSH executor quotes argv for a POSIX shell. */
    private static final Map<String, String> CANNED = Map.of(
            "'uptime'", " 12:00:01 up 42 days,  3:14,  0 users,  load average: 0.08, 0.03, 0.01\n",
            "'systemctl' 'is-active' 'nginx'", "active\n");

    private final SshServer server;
    private final KeyPair hostKey;
    private final KeyPair clientKey;
    private final AtomicInteger commands = new AtomicInteger();
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "demo-sshd-command");
        t.setDaemon(true);
        return t;
    });

    private DemoSshServer(KeyPair hostKey, KeyPair clientKey) {
        this.hostKey = hostKey;
        this.clientKey = clientKey;
        this.server = SshServer.setUpDefaultServer();
        server.setHost("127.0.0.1");
        server.setPort(0);
        server.setKeyPairProvider(KeyPairProvider.wrap(hostKey));
        server.setPublickeyAuthenticator((user, key, session) -> KeyUtils.compareKeys(clientKey.getPublic(), key));
        server.setPasswordAuthenticator(null);
        server.setKeyboardInteractiveAuthenticator(null);
        server.setShellFactory(null);
        server.setCommandFactory((channel, command) -> new CannedCommand(command));
    }

    static DemoSshServer start() throws IOException, GeneralSecurityException {
        DemoSshServer demo = new DemoSshServer(newKeyPair(), newKeyPair());
        try {
            demo.server.start();
        } catch (IOException e) {
            demo.close();
            throw e;
        }
        return demo;
    }

    int port() {
        return server.getPort();
    }

    int commandCount() {
        return commands.get();
    }

    /** Writes the known_hosts line that pins this server's host key, for {@code [127.0.0.1]:PORT}. */
    void writeKnownHosts(Path file) throws IOException {
        Files.writeString(file, "[127.0.0.1]:" + port() + ' ' + PublicKeyEntry.toString(hostKey.getPublic()) + '\n',
                StandardCharsets.UTF_8);
    }

    /** Writes the accepted client key as an unencrypted OpenSSH private key file, readable by its owner only. */
    void writeClientKey(Path file) throws IOException, GeneralSecurityException {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(clientKey, "postern-demo", null, text);
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, text.toByteArray());
    }

    @Override
    public void close() {
        try {
            server.stop(true);
        } catch (IOException e) {
            System.err.println("postern demo: the SSH server did not stop cleanly: " + e.getMessage());
        } finally {
            workers.shutdownNow();
        }
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        return KeyUtils.generateKeyPair(KeyPairProvider.ECDSA_SHA2_NISTP256, 256);
    }

    /** One exec request: counted when it starts, answered from {@link #CANNED} on a worker thread. */
    private final class CannedCommand implements Command {
        private final String line;
        private OutputStream out;
        private OutputStream err;
        private ExitCallback exit;

        CannedCommand(String line) {
            this.line = line;
        }

        @Override
        public void setInputStream(InputStream in) {
            // Canned answers read nothing.
        }

        @Override
        public void setOutputStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void setErrorStream(OutputStream err) {
            this.err = err;
        }

        @Override
        public void setExitCallback(ExitCallback exit) {
            this.exit = exit;
        }

        @Override
        public void start(ChannelSession channel, Environment env) {
            commands.incrementAndGet();
            workers.submit(this::answer);
        }

        private void answer() {
            String canned = CANNED.get(line);
            try {
                if (canned != null) {
                    out.write(canned.getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    exit.onExit(0);
                } else {
                    err.write(("demo sshd: no canned answer for " + line + '\n').getBytes(StandardCharsets.UTF_8));
                    err.flush();
                    exit.onExit(127);
                }
            } catch (IOException e) {
                // The client went away mid-answer; there is no one left to tell.
            }
        }

        @Override
        public void destroy(ChannelSession channel) {
            // Answers are immediate; nothing to stop.
        }
    }
}
