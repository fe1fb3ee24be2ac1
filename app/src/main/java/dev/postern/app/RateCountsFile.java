package dev.postern.app;

import dev.postern.journal.PrivateFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.zip.CRC32;

/**
 * Rate-limit buckets in {@code rate-limits.counts} in the journal directory, shared by every gateway
 * on it: each bucket is two fixed-size records (id, generation, units, time, CRC-32), and an update
 * reads the file, writes the older record with the next generation, and is done. Consumption is
 * recorded as a time, never a lease, so a process that dies holds nothing; a record cut short or
 * changed fails its CRC and the other one (the state before) counts, so a torn write neither blocks
 * nor grants. Updates are serialized by a JVM lock and then an OS lock on the file taken with
 * {@code tryLock} (never a blocking wait: the kernel's deadlock check sees POSIX locks per process,
 * and a process blocked on this file while another of its threads holds {@code journal.lock} could be
 * refused with EDEADLK). Not forced to disk: a process's exit loses nothing, an OS crash may lose the
 * last updates. One channel per file per JVM, counted by its users (see {@link dev.postern.journal}'s
 * lock: closing a second descriptor would drop the first one's lock). Thread-safe.
 */
final class RateCountsFile implements RateLimiter.Store {
    static final String NAME = "rate-limits.counts";
    /** {@code ID GEN UNITS AT CRC\n}: 32 + 16 + 16 + 16 + 8 hex digits, four spaces and a line end. */
    static final int RECORD = 32 + 1 + 16 + 1 + 16 + 1 + 16 + 1 + 8 + 1;
    static final int PAIR = 2 * RECORD;

    private static final Map<Path, Shared> OPEN = new HashMap<>();

    private final Path file;
    private Shared shared; // opened at the first update; null once closed

    /** A file's one channel in this JVM, its thread lock and how many use it. */
    private static final class Shared {
        final FileChannel channel;
        final ReentrantLock threads = new ReentrantLock();
        int users;

        Shared(FileChannel channel) {
            this.channel = channel;
        }
    }

    private RateCountsFile(Path file) {
        this.file = file;
    }

    /** The counts of journal directory {@code directory}; the file is created (0600) at the first update. */
    static RateCountsFile in(Path directory) {
        return new RateCountsFile(directory.resolve(NAME));
    }

    private synchronized Shared shared() throws IOException {
        if (shared != null) {
            return shared;
        }
        synchronized (OPEN) {
            PrivateFiles.directory(file.getParent());
            Path absolute = file.toAbsolutePath().normalize();
            Shared s = OPEN.get(absolute);
            if (s == null) {
                FileChannel channel = FileChannel.open(absolute, java.util.Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE), PrivateFiles.fileAttribute());
                s = new Shared(channel);
                OPEN.put(absolute, s);
            }
            s.users++;
            shared = s;
            return s;
        }
    }

    @Override
    public RateLimiter.Admission update(String id, Function<RateLimiter.State, RateLimiter.Step> step) throws IOException {
        if (!id.matches("[0-9a-f]{32}")) {
            throw new IllegalArgumentException("a bucket id is 32 hex digits: " + id);
        }
        Shared s = shared();
        s.threads.lock();
        try (FileLock held = lockFile(s.channel)) {
            PrivateFiles.existingFile(file);
            long size = s.channel.size();
            long whole = size - size % PAIR;
            ByteBuffer all = ByteBuffer.allocate(Math.toIntExact(whole));
            while (all.hasRemaining() && s.channel.read(all, all.position()) >= 0) {
                // read on until the whole pairs are in
            }
            byte[] bytes = all.array();
            long pairAt = -1;
            Record a = null;
            Record b = null;
            for (int p = 0; p + PAIR <= bytes.length; p += PAIR) {
                Record first = Record.parse(bytes, p);
                Record second = Record.parse(bytes, p + RECORD);
                if ((first != null && first.id.equals(id)) || (second != null && second.id.equals(id))) {
                    pairAt = p;
                    a = first;
                    b = second;
                    break;
                }
            }
            Record newest = a == null ? b : b == null ? a : (a.generation >= b.generation ? a : b);
            RateLimiter.Step result = step.apply(newest == null ? null : new RateLimiter.State(newest.units, newest.at));
            if (result.next().isPresent()) {
                RateLimiter.State next = result.next().get();
                long generation = newest == null ? 1 : newest.generation + 1;
                byte[] record = Record.render(id, generation, next.units(), next.at());
                if (pairAt < 0) {
                    // A new bucket: both records in one write where the whole pairs end (over any torn tail).
                    byte[] pair = new byte[PAIR];
                    System.arraycopy(record, 0, pair, 0, RECORD);
                    System.arraycopy(Record.render(id, 0, next.units(), next.at()), 0, pair, RECORD, RECORD);
                    write(s.channel, pair, whole);
                } else {
                    // The older (or damaged) record of the two: the newer one stays as it was if this write is torn.
                    boolean intoFirst = newest != a;
                    write(s.channel, record, pairAt + (intoFirst ? 0 : RECORD));
                }
            }
            return result.admission();
        } finally {
            s.threads.unlock();
        }
    }

    private static void write(FileChannel channel, byte[] bytes, long at) throws IOException {
        ByteBuffer out = ByteBuffer.wrap(bytes);
        while (out.hasRemaining()) {
            channel.write(out, at + out.position());
        }
    }

    /** The OS lock, by {@code tryLock} with a short growing pause (see the class comment). */
    private static FileLock lockFile(FileChannel channel) throws IOException {
        long pause = 20_000;
        for (long waited = 0; ; waited += pause, pause = Math.min(pause * 2, 5_000_000)) {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return lock;
            }
            if (waited > 10_000_000_000L) {
                throw new IOException("another process has held the rate-limit counts for over 10 s");
            }
            LockSupport.parkNanos(pause);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (shared == null) {
            return;
        }
        synchronized (OPEN) {
            if (--shared.users == 0) {
                OPEN.values().remove(shared);
                shared.channel.close();
            }
            shared = null;
        }
    }

    /** One bucket record, or null for one that does not parse or whose CRC does not match. */
    private static final class Record {
        final String id;
        final long generation;
        final long units;
        final long at;

        private Record(String id, long generation, long units, long at) {
            this.id = id;
            this.generation = generation;
            this.units = units;
            this.at = at;
        }

        static byte[] render(String id, long generation, long units, long at) {
            String body = id + ' ' + hex16(generation) + ' ' + hex16(units) + ' ' + hex16(at) + ' ';
            CRC32 crc = new CRC32();
            crc.update(body.getBytes(StandardCharsets.US_ASCII));
            byte[] out = (body + String.format("%08x", crc.getValue()) + '\n').getBytes(StandardCharsets.US_ASCII);
            if (out.length != RECORD) {
                throw new IllegalStateException("a record is " + RECORD + " bytes, not " + out.length);
            }
            return out;
        }

        private static String hex16(long v) {
            return String.format("%016x", v);
        }

        static Record parse(byte[] bytes, int at) {
            String line = new String(bytes, at, RECORD, StandardCharsets.US_ASCII);
            if (!line.matches("[0-9a-f]{32} [0-9a-f]{16} [0-9a-f]{16} [0-9a-f]{16} [0-9a-f]{8}\n")) {
                return null;
            }
            CRC32 crc = new CRC32();
            crc.update(bytes, at, RECORD - 9);
            if (crc.getValue() != Long.parseLong(line.substring(RECORD - 9, RECORD - 1), 16)) {
                return null;
            }
            return new Record(line.substring(0, 32), Long.parseUnsignedLong(line.substring(33, 49), 16),
                    Long.parseUnsignedLong(line.substring(50, 66), 16), Long.parseUnsignedLong(line.substring(67, 83), 16));
        }
    }

    @Override
    public String toString() {
        return "RateCountsFile[" + Objects.toString(file) + "]";
    }
}
