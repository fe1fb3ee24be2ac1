package dev.postern.executor.ssh;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.session.ConnectionService;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * An exec channel (no PTY, as {@code ClientSession.createExecChannel} makes one) that can ask the
 * server to signal its command and learn whether the server agreed: the {@code signal} request is
 * sent with want-reply, and the server's SUCCESS or FAILURE completes the returned future. The exec
 * request itself is sent without want-reply, so after the channel opens the only reply it can get is
 * the signal's. Thread-safe.
 */
final class SignallingExec extends ChannelExec {
    private CompletableFuture<Boolean> signalReply;

    private SignallingExec(String command) {
        super(command, StandardCharsets.UTF_8, null, Map.of());
    }

    /** Creates the channel for {@code command} on {@code session}, registered but not yet opened. */
    static SignallingExec on(ClientSession session, String command) throws IOException {
        SignallingExec channel = new SignallingExec(command);
        ConnectionService service = session.getService(ConnectionService.class);
        if (service == null) {
            throw new IOException("the session has no connection service");
        }
        service.registerChannel(channel);
        return channel;
    }

    /**
     * Sends {@code signal <name>} (RFC 4254 §6.9) with want-reply; the future completes true when the
     * server answers SUCCESS, false on FAILURE. It never completes if the server does not answer: the
     * caller bounds the wait. Call at most once, on an open channel.
     */
    CompletableFuture<Boolean> signal(String name) throws IOException {
        CompletableFuture<Boolean> reply = new CompletableFuture<>();
        synchronized (this) {
            if (signalReply != null) {
                throw new IllegalStateException("a signal was already sent on this channel");
            }
            signalReply = reply;
        }
        Buffer request = getSession().createBuffer(SshConstants.SSH_MSG_CHANNEL_REQUEST, 32);
        request.putUInt(getRecipient());
        request.putString("signal");
        request.putBoolean(true);
        request.putString(name);
        writePacket(request);
        return reply;
    }

    /** Sends end-of-file on the channel's input (once; later calls do nothing), which the stop-wrapper takes as "stop". */
    void endInput() throws IOException {
        sendEof();
    }

    @Override
    public void handleSuccess() throws IOException {
        CompletableFuture<Boolean> pending = pendingSignal();
        if (pending == null) {
            super.handleSuccess();
        } else {
            pending.complete(true);
        }
    }

    @Override
    public void handleFailure() throws IOException {
        CompletableFuture<Boolean> pending = pendingSignal();
        if (pending == null) {
            super.handleFailure();
        } else {
            pending.complete(false);
        }
    }

    private synchronized CompletableFuture<Boolean> pendingSignal() {
        return signalReply == null || signalReply.isDone() ? null : signalReply;
    }
}
