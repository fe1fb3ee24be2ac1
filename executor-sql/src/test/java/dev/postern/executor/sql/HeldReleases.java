package dev.postern.executor.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * The gate between a finished call and the threads that end its transaction ({@link ConnectionPool}),
 * holding each release until the test lets it go, so that the test can look at (or break) the
 * connection in between. Passes releases straight through once {@link #passThrough()} was called.
 * Thread-safe.
 */
final class HeldReleases implements Executor {
    private final List<Runnable> held = new ArrayList<>();
    private boolean passing;

    @Override
    public void execute(Runnable release) {
        synchronized (this) {
            if (!passing) {
                held.add(release);
                return;
            }
        }
        release.run();
    }

    /** How many releases are held now. */
    synchronized int held() {
        return held.size();
    }

    /** Lets every held release go (each continues on the release threads), and holds later ones again. */
    void letGo() {
        List<Runnable> go;
        synchronized (this) {
            go = new ArrayList<>(held);
            held.clear();
        }
        go.forEach(Runnable::run);
    }

    /** Lets every held release go and holds none from now on. */
    void passThrough() {
        synchronized (this) {
            passing = true;
        }
        letGo();
    }
}
