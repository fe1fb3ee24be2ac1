package dev.postern.journal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The exclusive lock on a journal directory's {@code journal.lock}: first a lock shared by the
 * threads of this JVM, then the OS lock that other processes see. One open channel per lock file
 * per JVM, counted by its users: POSIX drops every lock a process holds on a file when any of its
 * descriptors for that file closes, so a second channel, once closed, could free a lock another
 * thread still holds. Thread-safe.
 */
final class JournalLock implements AutoCloseable {
    private static final Map<Path, JournalLock> OPEN = new HashMap<>();

    private final Path file;
    private FileChannel channel; // replaced only under threads, when an interrupt closed it
    private final ReentrantLock threads = new ReentrantLock();
    private int users;

    private JournalLock(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /** The lock on {@code lockFile} (created if missing), shared with every other user in this JVM; close when done. */
    static JournalLock open(Path lockFile) throws IOException {
        synchronized (OPEN) {
            Path absolute = lockFile.toAbsolutePath().normalize();
            // Created 0600, or checked if another process or journal made it; never opened and closed here (see above).
            PrivateFiles.file(absolute);
            Path key = absolute.toRealPath();
            JournalLock lock = OPEN.get(key);
            if (lock == null) {
                lock = new JournalLock(key, FileChannel.open(key, StandardOpenOption.WRITE));
                OPEN.put(key, lock);
            }
            lock.users++;
            return lock;
        }
    }

    /**
     * Blocks until this thread holds the directory against every other thread and process; close the
     * result to let go. The caller sets a pending interrupt aside first: an interrupt closes the
     * channel ({@link ChainedJsonLines} does so around every batch). A channel an earlier interrupt
     * closed is reopened here (no thread of this JVM holds the OS lock then: they all take
     * {@code threads} first).
     */
    Held acquire() throws IOException {
        threads.lock();
        try {
            synchronized (OPEN) {
                if (!channel.isOpen()) {
                    if (users == 0) {
                        throw new IOException(file + ": the journal lock is closed");
                    }
                    channel = FileChannel.open(file, StandardOpenOption.WRITE);
                }
            }
            return new Held(channel.lock());
        } catch (IOException | RuntimeException e) {
            threads.unlock();
            throw e;
        }
    }

    /** The JVM-wide half of the lock; tests hold it to make appenders queue up. */
    ReentrantLock threads() {
        return threads;
    }

    /** The lock held by one thread; closing releases the OS lock, then the JVM lock. */
    final class Held implements AutoCloseable {
        private final FileLock os;

        private Held(FileLock os) {
            this.os = os;
        }

        @Override
        public void close() throws IOException {
            try {
                os.release();
            } finally {
                threads.unlock();
            }
        }
    }

    @Override
    public void close() throws IOException {
        synchronized (OPEN) {
            if (--users > 0) {
                return;
            }
            OPEN.remove(file);
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "JournalLock[" + file + "]";
    }
}
