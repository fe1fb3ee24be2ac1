package dev.postern.app.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;

/**
 * One append-only JSON Lines file whose rows carry {@code seq} and {@code prev}, the SHA-256 of
 * the previous row's bytes. Reopening an existing file continues its chain. Thread-safe.
 */
final class ChainedJsonLines implements AutoCloseable {
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
        if (Files.exists(path)) {
            List<String> lines = Files.readAllLines(path, StandardCharsets.UTF_8);
            if (!lines.isEmpty()) {
                String last = lines.get(lines.size() - 1);
                JsonNode row = mapper.readTree(last);
                lastSeq = row.path("seq").asLong();
                lastHash = HashChain.sha256(last);
            }
        }
        this.seq = lastSeq;
        this.prev = lastHash;
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
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
