package dev.postern.executor.ssh;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.future.OpenFuture;
import org.apache.sshd.client.session.ClientSession;

/**
 * The part of one execute() call that another thread touches: cancellation, fired from whichever
 * thread cancels, which asks the server to signal the remote command and then closes whatever the
 * call has open (its session too, so a cancelled session never returns to the pool). Once
 * {@link #finish} succeeds, cancellation does nothing: the session may then serve another call.
 * Thread-safe.
 */
final class Attempt {
    /** How long a stop waits for the server's answer to the signal request before closing anyway. */
    static final Duration SIGNAL_REPLY_WAIT = Duration.ofMillis(500);

    /**
     * What the signal request achieved, as far as the client can know. The stop itself does not depend
     * on it: ending the channel's input makes the {@link StopWrapper} on the host stop the command.
     */
    enum Stopped {
        SIGNALLED("the server accepted the request to signal it TERM"),
        REFUSED("the server refused the request to signal it TERM (OpenSSH refuses it for root logins and forced"
                + " commands)"),
        UNANSWERED("the server did not answer the request to signal it TERM within " + SIGNAL_REPLY_WAIT.toMillis()
                + " ms"),
        NOT_SENT("the request to signal it TERM could not be sent"),
        NOT_SIGNALLED("its channel never opened, so no signal was sent");

        private final String what;

        Stopped(String what) {
            this.what = what;
        }

        /** The truth for a message: what the signal request got, and that the stop-wrapper was told to stop it. */
        String describe() {
            return what + "; its input was ended and its channel and session closed, which tells the stop-wrapper on the host"
                    + " to send TERM to the command's process group and KILL " + StopWrapper.GRACE.toSeconds()
                    + " s later if it still runs";
        }
    }

    private boolean cancelled;
    private boolean finished;
    private ConnectFuture connecting;
    private ClientSession session;
    private SignallingExec channel;
    private OpenFuture opening;
    private CompletableFuture<Stopped> stopped;

    synchronized boolean cancelled() {
        return cancelled;
    }

    /** What the cancellation did to the running command; null if it came before there was a command to stop. */
    synchronized CompletableFuture<Stopped> stopped() {
        return stopped;
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
    synchronized void channel(SignallingExec c) {
        channel = c;
        opening = null;
    }

    /** Registers the channel's open request once sent; stops the command now if cancellation came first. */
    void opening(OpenFuture open) {
        CompletableFuture<Stopped> result = null;
        SignallingExec c;
        ClientSession s;
        synchronized (this) {
            opening = open;
            c = channel;
            s = session;
            if (cancelled && stopped == null) {
                result = stopped = pending();
            }
        }
        if (result != null) {
            stop(c, open, s, result);
        }
    }

    /** Fires on cancellation: stops the connect, or signals and closes the running command. */
    void cancel() {
        ConnectFuture f;
        ClientSession s;
        SignallingExec c;
        OpenFuture o;
        CompletableFuture<Stopped> result = null;
        synchronized (this) {
            if (cancelled || finished) {
                return;
            }
            cancelled = true;
            f = connecting;
            s = session;
            c = channel;
            o = opening;
            if (c != null && o != null) {
                result = stopped = pending();
            }
        }
        if (c != null) {
            if (result != null) {
                stop(c, o, s, result);
            }
            // else the open request is being sent right now, and opening() stops it.
        } else if (s != null) {
            s.close(true);
        } else if (f != null) {
            f.cancel();
        }
    }

    /** Stops a command the call itself gave up on (its deadline passed); see {@link #stop(SignallingExec, OpenFuture, ClientSession, CompletableFuture)}. */
    static CompletableFuture<Stopped> stop(SignallingExec c, OpenFuture open, ClientSession s) {
        CompletableFuture<Stopped> result = pending();
        stop(c, open, s, result);
        return result;
    }

    /** A stop result that settles as UNANSWERED if nothing settles it sooner. */
    private static CompletableFuture<Stopped> pending() {
        return new CompletableFuture<Stopped>()
                .completeOnTimeout(Stopped.UNANSWERED, SIGNAL_REPLY_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Once the channel's open settles: if it opened, ends the channel's input (the stop-wrapper's cue)
     * and asks the server to signal the command TERM
     * (RFC 4254 §6.9, with want-reply) and settles {@code result} with the answer; then, at once,
     * closes the channel and the session without waiting for the server to close its side. Never
     * blocks: {@code result} settles within {@link #SIGNAL_REPLY_WAIT} whatever the server does.
     */
    private static void stop(SignallingExec c, OpenFuture open, ClientSession s, CompletableFuture<Stopped> result) {
        result.whenComplete((how, error) -> {
            c.close(true);
            s.close(true);
        });
        open.addListener(settled -> {
            if (!settled.isOpened()) {
                result.complete(Stopped.NOT_SIGNALLED);
                return;
            }
            try {
                c.endInput();
            } catch (IOException | RuntimeException e) {
                // Closing the channel and the session below ends its input too.
            }
            try {
                c.signal("TERM").thenAccept(accepted -> result.complete(accepted ? Stopped.SIGNALLED : Stopped.REFUSED));
            } catch (IOException | RuntimeException e) {
                result.complete(Stopped.NOT_SENT);
            }
        });
    }
}
