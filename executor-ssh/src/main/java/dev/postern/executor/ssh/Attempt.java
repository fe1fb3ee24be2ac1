package dev.postern.executor.ssh;

import java.io.IOException;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.SshConstants;
import org.apache.sshd.common.util.buffer.Buffer;

/**
 * The part of one execute() call that another thread touches: cancellation, fired from whichever
 * thread cancels, which signals the remote command and closes whatever the call has open (its
 * session too, so a cancelled session never returns to the pool). Once {@link #finish} succeeds,
 * cancellation does nothing: the session may then serve another call. Thread-safe.
 */
final class Attempt {
    private boolean cancelled;
    private boolean finished;
    private ConnectFuture connecting;
    private ClientSession session;
    private ChannelExec channel;
    private OpenFuture opening;

    synchronized boolean cancelled() {
        return cancelled;
    }

    /**
     * Detaches the call from its cancellation; false if it was cancelled first, in which case what
     * it had open is being closed and must not be reused.
     */
    synchronized boolean finish() {
        if (cancelled) {
            return false;
        }
        finished = true;
        return true;
    }

    void connecting(ConnectFuture future) {
        boolean now;
        synchronized (this) {
            connecting = future;
            now = cancelled;
        }
        if (now) {
            future.cancel();
        }
    }

    /** Registers the session the call now runs on (a pooled one, or a new one), forgetting any earlier channel. */
    void session(ClientSession s) {
        boolean now;
        synchronized (this) {
            session = s;
            channel = null;
            opening = null;
            now = cancelled;
        }
        if (now) {
            s.close(true);
        }
    }

    /**
     * Registers the exec channel before its open request is sent: the server may start the command
     * before {@code open()} even returns, and a cancellation in that window must still signal it.
     */
    synchronized void channel(ChannelExec c) {
        channel = c;
        opening = null;
    }

    /** Registers the channel's open request once sent; stops the command now if cancellation came first. */
    void opening(OpenFuture open) {
        boolean now;
        ChannelExec c;
        ClientSession s;
        synchronized (this) {
            opening = open;
            now = cancelled;
            c = channel;
            s = session;
        }
        if (now) {
            stop(c, open, s);
        }
    }

    /** Fires on cancellation: stops the connect, or signals and closes the running command. */
    void cancel() {
        ConnectFuture f;
        ClientSession s;
        ChannelExec c;
        OpenFuture o;
        synchronized (this) {
            if (cancelled || finished) {
                return;
            }
            cancelled = true;
            f = connecting;
            s = session;
            c = channel;
            o = opening;
        }
        if (c != null) {
            if (o != null) {
                stop(c, o, s);
            }
            // else the open request is being sent right now, and opening() stops it.
        } else if (s != null) {
            s.close(true);
        } else if (f != null) {
            f.cancel();
        }
    }

    /**
     * Once the channel's open settles: if it opened, asks the remote side to TERM the command
     * (RFC 4254 §6.9; servers without support ignore the request); then closes the channel and the
     * session. Never blocks: it runs at once if the open has settled, else on the I/O thread when it does.
     */
    static void stop(ChannelExec c, OpenFuture open, ClientSession s) {
        open.addListener(settled -> {
            if (settled.isOpened()) {
                try {
                    Buffer signal = s.createBuffer(SshConstants.SSH_MSG_CHANNEL_REQUEST, 32);
                    signal.putUInt(c.getRecipient());
                    signal.putString("signal");
                    signal.putBoolean(false);
                    signal.putString("TERM");
                    c.writePacket(signal);
                } catch (IOException | RuntimeException e) {
                    // The channel is going away; closing it below is what matters.
                }
            }
            c.close(false);
            s.close(false);
        });
    }
}
