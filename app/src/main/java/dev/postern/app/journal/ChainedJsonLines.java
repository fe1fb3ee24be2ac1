package dev.postern.app.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Optional;

/**
 * One append-only JSON Lines file whose rows carry {@code seq} and {@code prev}, the SHA-256 of
 * the previous row's bytes. Reopening an existing file continues its chain from its last row; a
 * path that is not a regular file, or a file cut off mid-row, is refused. Thread-safe.
 */
final class ChainedJsonLines implements AutoCloseable {
    /** Rows are small (fingerprints, ids, short previews); a longer last row means the file is not a journal. */
    static final int MAX_ROW_BYTES = 64 * 1024;

    private final Path path;
    private final FileChannel channel;
    private final JsonMapper mapper;
    private final Clock clock;
    private long seq;
    private String prev;

    ChainedJsonLines(Path path, JsonMapper mapper, Clock clock) throws IOException {
        this.path = path;
        this.mapper = mapper;
        this.clock = clock;
        long lastSeq = 0;
        String lastHash = HashChain.GENESIS;
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.isRegularFile(path)) {
                throw new IOException(path + " is not a regular file");
            }
            Optional<byte[]> last = lastRow(path);
            if (last.isPresent()) {
                JsonNode row;
                try {
                    row = mapper.readTree(last.get());
                } catch (IOException e) {
                    throw new IOException(path + ": the last row is not JSON; run 'postern audit verify' on this directory", e);
                }
                lastSeq = row.path("seq").asLong();
                lastHash = HashChain.sha256(last.get());
            }
        }
        this.seq = lastSeq;
        this.prev = lastHash;
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /**
     * The file's last row, read from the end (a long journal is not read whole). A file that does not
     * end with a line end was cut off mid-row; appending would fuse two rows, so it is refused.
     */
    static Optional<byte[]> lastRow(Path path) throws IOException {
        try (FileChannel in = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = in.size();
            if (size == 0) {
                return Optional.empty();
            }
            long end = size - 1;
            if (readByte(in, end) != '\n') {
                throw new IOException(path + " ends with an incomplete row; run 'postern audit verify' on this directory");
            }
            long start = end;
            while (start > 0 && readByte(in, start - 1) != '\n') {
                start--;
                if (end - start > MAX_ROW_BYTES) {
                    throw new IOException(path + ": the last row is longer than " + MAX_ROW_BYTES + " bytes");
                }
            }
            ByteBuffer row = ByteBuffer.allocate((int) (end - start));
            while (row.hasRemaining() && in.read(row, start + row.position()) >= 0) {
                // read until the row is complete
            }
            return Optional.of(row.array());
        }
    }

    private static int readByte(FileChannel in, long position) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        if (in.read(one, position) != 1) {
            throw new IOException("short read at byte " + position);
        }
        return one.get(0);
    }

    /** Appends a row built from {@code fields}; with {@code durable}, forces it to disk before returning. */
    synchronized long append(ObjectNode fields, boolean durable) throws IOException {
        ObjectNode row = mapper.createObjectNode();
        long next = seq + 1;
        row.put("seq", next);
        row.put("time", clock.instant().toString());
        row.setAll(fields);
        row.put("prev", prev);
        String line = mapper.writeValueAsString(row);
        ByteBuffer buf = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
        if (durable) {
            channel.force(false);
        }
        seq = next;
        prev = HashChain.sha256(line);
        return next;
    }

    Path path() {
        return path;
    }

    @Override
    public synchronized void close() throws IOException {
        if (channel.isOpen()) {
            channel.force(false);
            channel.close();
        }
    }
}
