package dev.postern.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.port.JournalObserver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One chained journal ({@code NAME.jsonl} and its rotated segments {@code NAME.000001.jsonl}…) whose
 * rows carry {@code seq} and {@code prev}, the SHA-256 of the previous row's bytes; the chain runs
 * on across segments. Any number of processes may append to one directory: every batch is written
 * under an exclusive OS lock on the directory's {@code journal.lock}, after re-reading the chain head if another
 * process wrote since. The appending thread writes: whoever takes the lock commits every row queued
 * while the previous holder wrote, with one force for all of them (group commit), so a lone call
 * waits for no other thread. A pending interrupt is set aside during the I/O and restored after; an
 * interrupt that arrives during it closes the channel ({@code FileChannel} is interruptible), which
 * fails that batch (cut back like any failed write) and the next batch reopens the file. A failed
 * write is cut back to the last good offset; if that fails too, the file stops accepting rows until
 * restart. With a {@link CheckpointSigner}, a signed checkpoint row
 * follows the batch in which seq passes a multiple of its interval, and closes the file. Thread-safe.
 */
final class ChainedJsonLines implements AutoCloseable {
    /** The longest row written, read back as a chain head, or verified: one limit everywhere. */
    static final int MAX_ROW_BYTES = JournalFiles.MAX_ROW_BYTES;

    private final JournalFiles files;
    private final JsonMapper mapper;
    private final Clock clock;
    private final long rotateBytes;
    private final Optional<CheckpointSigner> signer;
    private final JournalLock lock;
    private final JournalObserver observer;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private final AtomicLong forces = new AtomicLong();
    private volatile long forcedThrough;
    private volatile String stopped;
    private boolean closing;

    // Touched only under the lock (by the thread holding it, or by the constructor).
    private FileChannel channel;
    private FileChannel reader;
    private Object fileKey;
    private long knownSize;
    private long seq;
    private String prev;
    private boolean headIsCheckpoint;
    private Optional<ObjectNode> repair = Optional.empty();

    /** A row waiting to be committed, and how its append ends: its seq, or the failure. */
    private record Pending(ObjectNode fields, boolean durable, CompletableFuture<Long> done) {
    }

    /**
     * Opens {@code files}, checking the chain head under the lock: a torn last row (a crash mid-write)
     * is cut off and the repair journaled; a last row that is not a journal row, or does not chain to
     * the row before it, is refused with the file and row named.
     */
    ChainedJsonLines(JournalFiles files, JsonMapper mapper, Clock clock, long rotateBytes) throws IOException {
        this(files, mapper, clock, rotateBytes, Optional.empty());
    }

    /** As above; with {@code signer}, checkpoint rows sign the chain head (see the class comment). */
    ChainedJsonLines(JournalFiles files, JsonMapper mapper, Clock clock, long rotateBytes, Optional<CheckpointSigner> signer)
            throws IOException {
        this(files, mapper, clock, rotateBytes, signer, JournalObserver.NONE);
    }

    /** As above; {@code observer} hears each row once its batch is written (see {@link JournalObserver}). */
    ChainedJsonLines(JournalFiles files, JsonMapper mapper, Clock clock, long rotateBytes, Optional<CheckpointSigner> signer,
            JournalObserver observer) throws IOException {
        this.observer = Objects.requireNonNull(observer, "observer");
        if (rotateBytes < 1) {
            throw new IllegalArgumentException("rotateBytes must be positive");
        }
        this.files = Objects.requireNonNull(files, "files");
        this.mapper = mapper;
        this.clock = clock;
        this.rotateBytes = rotateBytes;
        this.signer = Objects.requireNonNull(signer, "signer");
        Path active = files.active();
        if (Files.exists(active, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(active)) {
            throw new IOException(active + " is not a regular file");
        }
        this.lock = JournalLock.open(files.lock());
        try (JournalLock.Held held = lock.acquire()) {
            knownSize = -1;
            syncHead();
            if (repair.isPresent()) {
                commitLocked(List.of(), false);
            }
        } catch (IOException | RuntimeException e) {
            closeQuietly();
            throw e;
        }
    }

    /**
     * Appends a row built from {@code fields} and returns its seq; with {@code durable}, returns only
     * after the row is forced to disk. The calling thread commits the queue itself once it holds the
     * directory's lock, unless the thread that held it before already committed this row with its own
     * (group commit). Waits uninterruptibly; an interrupt that was pending, or arrives meanwhile, is
     * kept for the caller (see the class comment).
     */
    long append(ObjectNode fields, boolean durable) throws IOException {
        Pending p = new Pending(fields, durable, new CompletableFuture<>());
        synchronized (queue) {
            if (closing) {
                throw new IOException("the journal is closed");
            }
            queue.add(p);
        }
        boolean interrupted = Thread.interrupted();
        try {
            commitQueued(p);
        } finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            return p.done().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                // Some carry no message (ClosedByInterruptException): name the exception then.
                throw new IOException(io.getMessage() != null ? io.getMessage() : io.getClass().getSimpleName(), io);
            }
            throw e;
        }
    }

    /**
     * Takes the lock and, unless {@code mine} was committed meanwhile by the thread that held it
     * before, commits every queued row in one batch ({@code mine} null: in any case). A batch that
     * cannot get the lock fails.
     */
    private void commitQueued(Pending mine) {
        List<Pending> batch = List.of();
        try (JournalLock.Held held = lock.acquire()) {
            if (mine != null && mine.done().isDone()) {
                return;
            }
            batch = drain();
            commitHeld(batch);
        } catch (IOException | RuntimeException | Error e) {
            // An Error here (say, out of memory) must not leave rows waiting for ever, nor let rows go on after it.
            if (e instanceof Error) {
                stopped = files.active() + ": the journal writer failed (" + e + "); the journal accepts no more rows until Postern is restarted";
            }
            IOException failure = e instanceof IOException io ? io : new IOException(String.valueOf(stopped == null ? e : stopped), e);
            fail(batch, failure);
            if (mine != null && !mine.done().isDone()) {
                synchronized (queue) {
                    queue.remove(mine);
                }
                mine.done().completeExceptionally(failure);
            }
        }
    }

    private List<Pending> drain() {
        synchronized (queue) {
            List<Pending> batch = new ArrayList<>(queue);
            queue.clear();
            return batch;
        }
    }

    Path path() {
        return files.active();
    }

    /** How many times this file was forced to disk (a test and benchmark seam). */
    long forces() {
        return forces.get();
    }

    /** The highest seq known to be on disk: every durable append returns only once this reaches its seq. */
    long forcedThrough() {
        return forcedThrough;
    }

    /** Under the lock: writes {@code batch}, or fails it if this file has stopped. */
    private void commitHeld(List<Pending> batch) throws IOException {
        String why = stopped;
        if (why != null) {
            fail(batch, new IOException(why));
            return;
        }
        try {
            syncHead();
            commitLocked(batch, false);
        } catch (IOException | RuntimeException e) {
            fail(batch, e instanceof IOException io ? io : new IOException(e.toString(), e));
        }
    }

    /**
     * Writes {@code batch} (after a pending repair row, and before a checkpoint row when one is due or
     * {@code checkpoint} asks for one) in one write and, if any row is durable, one force. On failure
     * the file is cut back to where the batch began and every row in it fails.
     */
    private void commitLocked(List<Pending> batch, boolean checkpoint) throws IOException {
        rotateIfFull();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long nextSeq = seq;
        String nextPrev = prev;
        boolean force = repair.isPresent();
        List<Pending> written = new ArrayList<>(batch.size());
        List<Long> seqs = new ArrayList<>(batch.size());
        List<ObjectNode> rows = new ArrayList<>(batch.size() + 1);
        // Only an observer needs the rows again: without one, the write path gathers nothing for it.
        boolean observed = observer != JournalObserver.NONE;
        List<byte[]> lines = observed ? new ArrayList<>(batch.size() + 2) : null;
        List<String> hashes = observed ? new ArrayList<>(batch.size() + 2) : null;
        repair.ifPresent(rows::add);
        rows.addAll(batch.stream().map(Pending::fields).toList());
        for (int i = 0; i < rows.size(); i++) {
            Pending p = repair.isPresent() ? (i == 0 ? null : batch.get(i - 1)) : batch.get(i);
            ObjectNode row = mapper.createObjectNode();
            row.put("seq", nextSeq + 1);
            row.put("time", clock.instant().toString());
            row.setAll(rows.get(i));
            row.put("prev", nextPrev);
            byte[] line = mapper.writeValueAsBytes(row);
            if (line.length > MAX_ROW_BYTES) {
                if (p != null) {
                    p.done().completeExceptionally(new IOException("a row of " + line.length + " bytes is longer than the journal's limit of "
                            + MAX_ROW_BYTES));
                }
                continue;
            }
            nextSeq++;
            nextPrev = HashChain.sha256(line);
            bytes.write(line);
            bytes.write('\n');
            if (observed) {
                lines.add(line);
                hashes.add(nextPrev);
            }
            if (p != null) {
                written.add(p);
                seqs.add(nextSeq);
                force |= p.durable();
            }
        }
        boolean signed = false;
        if (signer.isPresent() && nextSeq > 0 && (checkpoint ? !(headIsCheckpoint && nextSeq == seq) : signer.get().due(seq, nextSeq))) {
            byte[] line = checkpointRow(signer.get(), nextSeq, nextPrev);
            nextSeq++;
            nextPrev = HashChain.sha256(line);
            bytes.write(line);
            bytes.write('\n');
            if (observed) {
                lines.add(line);
                hashes.add(nextPrev);
            }
            signed = true;
            force |= checkpoint;
        }
        if (bytes.size() == 0) {
            return;
        }
        long start = knownSize;
        long began = System.nanoTime();
        try {
            ByteBuffer buf = ByteBuffer.wrap(bytes.toByteArray());
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
            if (force) {
                channel.force(false);
                forces.incrementAndGet();
            }
        } catch (IOException e) {
            cutBack(start, e);
            throw stopped == null ? e : new IOException(stopped, e);
        }
        knownSize = start + bytes.size();
        seq = nextSeq;
        prev = nextPrev;
        headIsCheckpoint = signed;
        repair = Optional.empty();
        if (force) {
            forcedThrough = nextSeq;
        }
        // Before the writers are released: a writer that then ends the session (and closes telemetry)
        // finds every row it waited for already handed on.
        if (observed) {
            observe(lines, hashes, nextSeq - lines.size(), force, System.nanoTime() - began);
        }
        for (int i = 0; i < written.size(); i++) {
            written.get(i).done().complete(seqs.get(i));
        }
    }

    /**
     * Tells the observer of the rows just written (the first one's seq is {@code afterSeq + 1}) and how
     * long the write took; an observer that throws is not the journal's failure.
     */
    private void observe(List<byte[]> lines, List<String> hashes, long afterSeq, boolean forced, long nanos) {
        try {
            observer.flushed(files.name(), forced, nanos);
            for (int i = 0; i < lines.size(); i++) {
                byte[] line = lines.get(i);
                observer.written(new JournalObserver.JournalRow(files.name(), afterSeq + 1 + i, hashes.get(i),
                        new String(line, StandardCharsets.UTF_8)));
            }
        } catch (RuntimeException e) {
            // The port's contract forbids it; the rows are on disk whatever the observer did.
        }
    }

    /** A checkpoint row signing the head {@code headSeq}/{@code headSha256}: it takes the next seq and chains to that head. */
    private byte[] checkpointRow(CheckpointSigner s, long headSeq, String headSha256) throws IOException {
        String journal = files.active().getFileName().toString();
        ObjectNode row = mapper.createObjectNode();
        row.put("seq", headSeq + 1);
        row.put("time", clock.instant().toString());
        row.put("kind", Checkpoints.KIND);
        row.put("journal", journal);
        ObjectNode head = row.putObject("head");
        head.put("seq", headSeq);
        head.put("sha256", headSha256);
        row.put("alg", Checkpoints.ALGORITHM);
        row.put("signature", s.sign(journal, headSeq, headSha256));
        row.put("prev", headSha256);
        return mapper.writeValueAsBytes(row);
    }

    /** Cuts the file back to {@code offset} after a failed write; if even that fails, stops the file for good. */
    private void cutBack(long offset, IOException cause) {
        // Through a RandomAccessFile, which no interrupt can close: the interrupt that failed the write
        // may still be pending, and a cut back that failed would stop the journal for good.
        try (RandomAccessFile file = new RandomAccessFile(files.active().toFile(), "rw")) {
            file.setLength(offset);
            file.getFD().sync();
        } catch (IOException | RuntimeException e) {
            stopped = files.active() + ": a failed write (" + describe(cause) + ") could not be cut back to byte " + offset
                    + " (" + describe(e) + "); the journal accepts no more rows until Postern is restarted";
        }
    }

    private static String describe(Exception e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /**
     * Under the lock: follows a rotation by another process, and re-reads the chain head if the file
     * changed since this process last wrote it (its size is remembered after every write).
     */
    private void syncHead() throws IOException {
        Path active = files.active();
        PosixFileAttributes attributes = currentAttributes(active);
        if (attributes != null) {
            // The one stat every batch makes anyway: a file others could change is refused before any row goes in.
            PrivateFiles.checked(active, attributes);
        }
        Object key = attributes == null ? null : attributes.fileKey();
        if (channel == null || !channel.isOpen() || !reader.isOpen() || key == null || !key.equals(fileKey)) {
            closeFile();
            openFile();
            knownSize = -1;
        }
        long size = channel.size();
        if (size == knownSize) {
            return;
        }
        Tail tail = Tail.read(reader, size, MAX_ROW_BYTES);
        if (tail.tornBytes().length > 0) {
            long keep = size - tail.tornBytes().length;
            channel.truncate(keep);
            channel.force(false);
            ObjectNode row = mapper.createObjectNode();
            row.put("kind", "repair");
            row.put("removedBytes", tail.tornBytes().length);
            row.put("removedSha256", HashChain.sha256(tail.tornBytes()));
            row.put("reason", "a row cut off mid-write (a crash) was removed from the end of " + files.active().getFileName());
            repair = Optional.of(row);
            size = keep;
        }
        if (tail.last().isPresent()) {
            JournalFiles.Head head = head(active, tail);
            seq = head.seq();
            prev = head.hash();
            headIsCheckpoint = head.checkpoint() && repair.isEmpty();
        } else {
            JournalFiles.Head head = files.headOfSegments(mapper);
            seq = head.seq();
            prev = head.hash();
            headIsCheckpoint = head.checkpoint();
        }
        knownSize = size;
    }

    private JournalFiles.Head head(Path file, Tail tail) throws IOException {
        byte[] last = tail.last().get();
        JsonNode row;
        try {
            row = mapper.readTree(last);
        } catch (IOException e) {
            throw new IOException(file + ": the last row is not JSON; run 'postern audit verify' on this directory");
        }
        JsonNode s = row == null ? null : row.get("seq");
        JsonNode p = row == null ? null : row.get("prev");
        if (s == null || !s.canConvertToLong() || p == null || !p.isTextual()) {
            throw new IOException(file + ": the last row has no seq or prev; run 'postern audit verify' on this directory");
        }
        if (tail.beforeLast().isPresent() && !p.textValue().equals(HashChain.sha256(tail.beforeLast().get()))) {
            throw new IOException(file + ": the row with seq " + s.asLong() + " does not chain to the row before it "
                    + "(one of them was changed); run 'postern audit verify' on this directory");
        }
        return new JournalFiles.Head(s.asLong(), HashChain.sha256(last), Checkpoints.KIND.equals(row.path("kind").textValue()));
    }

    /** At {@code rotateBytes}, renames the file to the next segment and starts a new one; the chain runs on. */
    private void rotateIfFull() throws IOException {
        if (knownSize < rotateBytes || knownSize == 0) {
            return;
        }
        channel.force(false);
        closeFile();
        files.rotate();
        openFile();
        knownSize = channel.size();
    }

    /** Opens the active file (creating it): an append-only channel to write, a second one to read its end. */
    private void openFile() throws IOException {
        Path active = files.active();
        channel = FileChannel.open(active, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND),
                PrivateFiles.fileAttribute());
        reader = FileChannel.open(active, StandardOpenOption.READ);
        PosixFileAttributes attributes = currentAttributes(active);
        if (attributes == null) {
            throw new IOException(active + " vanished as it was opened");
        }
        PrivateFiles.checked(active, attributes);
        fileKey = attributes.fileKey();
    }

    private void closeFile() throws IOException {
        try {
            if (channel != null) {
                channel.close();
            }
        } finally {
            channel = null;
            if (reader != null) {
                reader.close();
                reader = null;
            }
        }
    }

    private static PosixFileAttributes currentAttributes(Path file) throws IOException {
        try {
            return Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static void fail(List<Pending> batch, IOException e) {
        for (Pending p : batch) {
            p.done().completeExceptionally(e);
        }
    }

    /** Stops taking rows, writes what is queued, and closes the file. */
    @Override
    public void close() throws IOException {
        synchronized (queue) {
            if (closing) {
                return;
            }
            closing = true;
        }
        boolean interrupted = Thread.interrupted();
        try {
            // Rows queued by appenders that have not had the lock yet: they find them committed.
            commitQueued(null);
            checkpointAtClose();
            if (channel != null && channel.isOpen()) {
                channel.force(false);
            }
        } finally {
            closeQuietly();
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** With a signer, signs the chain head as this process leaves it, unless a checkpoint already is the head. */
    private void checkpointAtClose() throws IOException {
        if (signer.isEmpty() || stopped != null || channel == null) {
            return;
        }
        try (JournalLock.Held held = lock.acquire()) {
            syncHead();
            commitLocked(List.of(), true);
        }
    }

    private void closeQuietly() {
        try {
            try {
                closeFile();
            } finally {
                lock.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The end of a file: its last complete row, the row before it, and any bytes after the last line feed. */
    record Tail(Optional<byte[]> last, Optional<byte[]> beforeLast, byte[] tornBytes) {
        /**
         * Reads backwards from {@code size} in blocks until it has found three line feeds or the file's
         * start; any of the three pieces longer than {@code maxRow} means the file is not a journal.
         */
        static Tail read(FileChannel in, long size, int maxRow) throws IOException {
            List<Long> feeds = new ArrayList<>(3);
            long pos = size;
            byte[] block = new byte[8192];
            while (pos > 0 && feeds.size() < 3) {
                int n = (int) Math.min(block.length, pos);
                pos -= n;
                ByteBuffer buf = ByteBuffer.wrap(block, 0, n);
                while (buf.hasRemaining()) {
                    if (in.read(buf, pos + buf.position()) < 0) {
                        throw new IOException("short read at byte " + (pos + buf.position()));
                    }
                }
                for (int i = n - 1; i >= 0 && feeds.size() < 3; i--) {
                    if (block[i] == '\n') {
                        feeds.add(pos + i);
                    }
                }
                long lowest = feeds.isEmpty() ? size : feeds.get(feeds.size() - 1);
                if (feeds.size() < 3 && lowest - pos > maxRow + 1L) {
                    throw new IOException("a row near the end is longer than " + maxRow + " bytes; this is not a journal file");
                }
            }
            byte[] torn = readRange(in, feeds.isEmpty() ? 0 : feeds.get(0) + 1, size, maxRow);
            Optional<byte[]> last = Optional.empty();
            Optional<byte[]> before = Optional.empty();
            if (!feeds.isEmpty()) {
                last = Optional.of(readRange(in, feeds.size() > 1 ? feeds.get(1) + 1 : 0, feeds.get(0), maxRow));
                if (feeds.size() > 1) {
                    before = Optional.of(readRange(in, feeds.size() > 2 ? feeds.get(2) + 1 : 0, feeds.get(1), maxRow));
                }
            }
            return new Tail(last, before, torn);
        }

        private static byte[] readRange(FileChannel in, long from, long to, int maxRow) throws IOException {
            if (to - from > maxRow) {
                throw new IOException("a row near the end is longer than " + maxRow + " bytes; this is not a journal file");
            }
            return readRange(in, from, to);
        }

        private static byte[] readRange(FileChannel in, long from, long to) throws IOException {
            if (to - from > Integer.MAX_VALUE - 8) {
                throw new IOException("a row near the end is too long; this is not a journal file");
            }
            ByteBuffer buf = ByteBuffer.allocate((int) (to - from));
            while (buf.hasRemaining()) {
                if (in.read(buf, from + buf.position()) < 0) {
                    throw new IOException("short read at byte " + (from + buf.position()));
                }
            }
            return buf.array();
        }
    }
}
