package dev.postern.executor.ssh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.fixtures.FakeSshServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The probe reads the offered host key, authenticates nothing and runs nothing. */
class HostKeyProbeTest {

    @Test
    void theProbeReportsTheServersKeyAndNeverAuthenticates() throws Exception {
        try (FakeSshServer server = FakeSshServer.start()) {
            SshActionExecutor.OfferedKey key = SshActionExecutor.probeHostKey("127.0.0.1", server.port(), Duration.ofSeconds(10));

            assertEquals(server.hostKeyFingerprint(), key.fingerprint());
            assertEquals("ecdsa-sha2-nistp256", key.type());
            assertEquals(server.knownHostsLine(), key.knownHostsLine());
            assertEquals(0, server.authCount());
            assertEquals(0, server.commandCount());
        }
    }

    @Test
    void onPort22TheKnownHostsLineNamesTheBareAddress() throws Exception {
        try (FakeSshServer server = FakeSshServer.start()) {
            String line = HostKeyProbe.describe(server.hostKey(), "10.0.0.5", 22).knownHostsLine();
            assertTrue(line.startsWith("10.0.0.5 ecdsa-sha2-nistp256 AAAA"), line);
            assertTrue(HostKeyProbe.describe(server.hostKey(), "::1", 2222).knownHostsLine().startsWith("[::1]:2222 "));
        }
    }

    @Test
    void aRefusedConnectionIsAnIoError() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        int closed = port;
        IOException e = assertThrows(IOException.class, () -> HostKeyProbe.probe("127.0.0.1", closed, Duration.ofSeconds(5)));
        assertTrue(e.getMessage().contains("127.0.0.1:" + closed), e.getMessage());
    }

    @Test
    void aServerThatNeverSpeaksTimesOut() throws Exception {
        AtomicReference<Socket> accepted = new AtomicReference<>();
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    accepted.set(silent.accept());
                } catch (IOException e) {
                    // closed by the test
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            IOException e = assertThrows(IOException.class,
                    () -> HostKeyProbe.probe("127.0.0.1", silent.getLocalPort(), Duration.ofMillis(500)));
            assertTrue(e.getMessage().contains("timed out"), e.getMessage());
        } finally {
            Socket s = accepted.get();
            if (s != null) {
                s.close();
            }
        }
    }
}
