package dev.postern.executor.sql;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Counts the message groups the PostgreSQL driver ends with a Sync on the thread that created this
 * (each one round trip: the server answers a group at its Sync), from the driver's own FINEST log,
 * which goes nowhere else. {@link #close()} puts the logger back.
 */
final class SyncCounter extends Handler implements AutoCloseable {
    private static final Logger DRIVER = Logger.getLogger("org.postgresql.core.v3.QueryExecutorImpl");

    private final Thread thread = Thread.currentThread();
    private final Level level = DRIVER.getLevel();
    private final boolean parents = DRIVER.getUseParentHandlers();
    private volatile int syncs;

    SyncCounter() {
        setLevel(Level.ALL);
        DRIVER.setUseParentHandlers(false);
        DRIVER.addHandler(this);
        DRIVER.setLevel(Level.FINEST);
    }

    /** Syncs sent on the creating thread so far. */
    int syncs() {
        return syncs;
    }

    @Override
    public void publish(LogRecord record) {
        if (Thread.currentThread() == thread && "FE=> Sync".equals(String.valueOf(record.getMessage()).strip())) {
            syncs++;
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        DRIVER.removeHandler(this);
        DRIVER.setLevel(level);
        DRIVER.setUseParentHandlers(parents);
    }
}
