package dev.postern.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads one journal's rows in seq order across its rotated files, for display, and can be asked again
 * for rows written since ({@code tail -f} across rotation). It holds the file it reads open, so a
 * rotation (a rename) loses nothing: when the file it reads is no longer the active one, it reads it to
 * the end and goes on in the file that holds the next seq. Only whole rows (ending in a line feed) are
 * returned; rows that are not JSON objects with a seq are counted, not returned. It does not check the
 * chain ({@code audit verify} does). Not thread-safe.
 */
public final class JournalReader implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int BLOCK = 64 * 1024;

    private final JournalFiles files;
    private FileChannel channel;
    private Object channelKey;
    private String channelName;
    private long offset;
    private Object finishedKey;
    private long nextSeq = 1;
    private long unreadable;

    /** One row: its seq, the name of the file it was read from, and the row. */
    public record Entry(long seq, String file, JsonNode row) {
        public Entry {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(row, "row");
        }
    }

    private final Runnable beforeOpen;

    JournalReader(JournalFiles files) {
        this(files, () -> { });
    }

    /** A reader that runs {@code beforeOpen} after it chose a file and before it opens it (a test's rotation). */
    JournalReader(JournalFiles files, Runnable beforeOpen) {
        this.files = Objects.requireNonNull(files, "files");
        this.beforeOpen = Objects.requireNonNull(beforeOpen, "beforeOpen");
    }

    /** A reader of the decisions journal in {@code directory}. */
    public static JournalReader decisions(Path directory) {
        return new JournalReader(new JournalFiles(directory, FileAuditJournal.DECISIONS_NAME));
    }

    /** A reader of the actions journal in {@code directory}. */
    public static JournalReader actions(Path directory) {
        return new JournalReader(new JournalFiles(directory, FileAuditJournal.ACTIONS_NAME));
    }

    /** The journal's name, as {@code audit verify} names it: {@code actions.jsonl}. */
    public String name() {
        return files.active().getFileName().toString();
    }

    /** How many rows so far were not JSON objects with a seq, or too long to be rows. */
    public long unreadable() {
        return unreadable;
    }

    /** The seq the next row returned will have (at least). */
    public long nextSeq() {
        return nextSeq;
    }

    /**
     * Up to {@code max} rows with seq below {@code untilSeq} that are on disk now and were not returned
     * before; an empty list when there are none yet.
     */
    public List<Entry> poll(int max, long untilSeq) throws IOException {
        List<Entry> out = new ArrayList<>();
        int switches = 0;
        while (out.size() < max && nextSeq < untilSeq) {
            if (channel == null && !locate()) {
                break;
            }
            readAvailable(out, max, untilSeq);
            if (out.size() >= max || nextSeq >= untilSeq) {
                break;
            }
            if (channelKey.equals(key(files.active()))) {
                break;
            }
            // The file was rotated (or replaced): read what was appended before the rename, then move on.
            readAvailable(out, max, untilSeq);
            if (out.size() >= max) {
                break;
            }
            finishedKey = channelKey;
            closeChannel();
            if (++switches > 3) {
                break;
            }
        }
        return out;
    }

    /** All rows on disk now, up to {@code untilSeq} (exclusive). */
    public List<Entry> readAll(long untilSeq) throws IOException {
        List<Entry> all = new ArrayList<>();
        List<Entry> some;
        while (!(some = poll(BLOCK, untilSeq)).isEmpty()) {
            all.addAll(some);
        }
        return all;
    }

    /**
     * Opens the file that holds {@code nextSeq}: the last whose first row is at or before it. False when
     * there is none yet. A gateway may rotate the journal between the listing and the open, so the file
     * opened is checked to be the one chosen (its key before and after the open) and, once rows were read,
     * not to start after {@code nextSeq} while the chain grew meanwhile; either way it lists again.
     */
    private boolean locate() throws IOException {
        for (int attempt = 0; attempt < 8; attempt++) {
            List<Path> chain = files.chain();
            Path chosen = choose(chain);
            if (chosen == null) {
                return false;
            }
            Object before = key(chosen);
            beforeOpen.run();
            FileChannel opened;
            try {
                opened = FileChannel.open(chosen, StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                continue;
            }
            Object after = key(chosen);
            if (before == null || !before.equals(after)) {
                opened.close();
                continue;
            }
            if (nextSeq > 1) {
                Optional<Long> first = firstSeq(opened);
                if (first.isPresent() && first.get() > nextSeq && !files.chain().equals(chain)) {
                    // The listing was stale: the rows from nextSeq were rotated into a file it did not show.
                    opened.close();
                    continue;
                }
            }
            channel = opened;
            channelKey = after;
            channelName = chosen.getFileName().toString();
            offset = 0;
            return true;
        }
        return false;
    }

    /** The file of {@code chain} that holds {@code nextSeq}, skipping the one finished; null when there is none. */
    private Path choose(List<Path> chain) throws IOException {
        Path chosen = null;
        int chosenAt = -1;
        for (int i = 0; i < chain.size(); i++) {
            Optional<Long> first = firstSeq(chain.get(i));
            if (first.isPresent() && first.get() <= nextSeq) {
                chosen = chain.get(i);
                chosenAt = i;
            } else if (first.isPresent() && chosen == null) {
                // Older files are gone: start at the oldest there is.
                chosen = chain.get(i);
                chosenAt = i;
                break;
            }
        }
        if (chosen != null && finishedKey != null && finishedKey.equals(key(chosen))) {
            chosen = chosenAt + 1 < chain.size() ? chain.get(chosenAt + 1) : null;
        }
        if (chosen == null) {
            chosen = chain.isEmpty() || finishedKey != null && finishedKey.equals(key(chain.get(chain.size() - 1)))
                    ? null : chain.get(chain.size() - 1);
        }
        return chosen;
    }

    private void readAvailable(List<Entry> out, int max, long untilSeq) throws IOException {
        long size = channel.size();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long lineStart = offset;
        long pos = offset;
        boolean skipping = false;
        ByteBuffer buf = ByteBuffer.allocate(BLOCK);
        while (pos < size && out.size() < max && nextSeq < untilSeq) {
            buf.clear();
            int n = channel.read(buf, pos);
            if (n <= 0) {
                break;
            }
            byte[] block = buf.array();
            for (int i = 0; i < n && out.size() < max && nextSeq < untilSeq; i++) {
                byte b = block[i];
                if (b == '\n') {
                    if (skipping) {
                        unreadable++;
                    } else {
                        accept(line.toByteArray(), out);
                    }
                    line.reset();
                    skipping = false;
                    lineStart = pos + i + 1;
                } else if (!skipping) {
                    if (line.size() >= JournalFiles.MAX_ROW_BYTES) {
                        skipping = true;
                        line.reset();
                    } else {
                        line.write(b);
                    }
                }
            }
            pos += n;
        }
        offset = lineStart;
    }

    private void accept(byte[] bytes, List<Entry> out) {
        JsonNode row;
        try {
            row = JSON.readTree(bytes);
        } catch (IOException e) {
            unreadable++;
            return;
        }
        if (row == null || !row.isObject() || !row.path("seq").canConvertToLong()) {
            unreadable++;
            return;
        }
        long seq = row.get("seq").asLong();
        if (seq < nextSeq) {
            return;
        }
        nextSeq = seq + 1;
        out.add(new Entry(seq, channelName, row));
    }

    /** The seq of a file's first whole row, if it has one. */
    private static Optional<Long> firstSeq(Path file) throws IOException {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            return firstSeq(in);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /** The seq of the first whole row read through {@code in}, if it has one. */
    private static Optional<Long> firstSeq(FileChannel in) throws IOException {
        try {
            ByteArrayOutputStream first = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(8192);
            long pos = 0;
            while (first.size() <= JournalFiles.MAX_ROW_BYTES) {
                buf.clear();
                int n = in.read(buf, pos);
                if (n <= 0) {
                    return Optional.empty();
                }
                for (int i = 0; i < n; i++) {
                    if (buf.array()[i] == '\n') {
                        JsonNode row = JSON.readTree(first.toByteArray());
                        return row != null && row.path("seq").canConvertToLong() ? Optional.of(row.get("seq").asLong()) : Optional.empty();
                    }
                    first.write(buf.array()[i]);
                }
                pos += n;
            }
            return Optional.empty();
        } catch (IOException e) {
            if (e instanceof com.fasterxml.jackson.core.JsonProcessingException) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static Object key(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private void closeChannel() throws IOException {
        if (channel != null) {
            try {
                channel.close();
            } finally {
                channel = null;
                channelKey = null;
            }
        }
    }

    @Override
    public void close() throws IOException {
        closeChannel();
    }
}
