package dev.postern.journal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of one journal in its directory: the file being written ({@code NAME.jsonl}), the
 * rotated segments before it ({@code NAME.000001.jsonl}, {@code NAME.000002.jsonl}…, oldest first,
 * the chain running on from one to the next) and the directory's one lock file ({@code journal.lock},
 * shared by both journals: a process that waited on two lock files could be refused with EDEADLK,
 * because the kernel sees POSIX locks per process, not per thread). Immutable.
 */
record JournalFiles(Path directory, String name) {
    /** The longest row the journal writes, reads back as its chain head, or verifies. */
    static final int MAX_ROW_BYTES = 1 << 20;

    static final String LOCK_FILE = "journal.lock";

    /** The names of the files Postern writes in a journal directory: journals, their segments, lock files, rate-limit counts. */
    private static final Pattern POSTERN_FILE = Pattern.compile("(decisions|actions)(\\.[0-9]{6,18})?\\.jsonl|[a-z-]+\\.lock|rate-limits\\.[a-z]+");

    private static final Pattern SEGMENT_NUMBER = Pattern.compile("\\.([0-9]{6,18})\\.jsonl");

    /** The chain head: the last row's seq and SHA-256 ({@code 0} and 64 zeros before the first row), and whether it is a checkpoint. */
    record Head(long seq, String hash, boolean checkpoint) {
        static final Head GENESIS = new Head(0, HashChain.GENESIS, false);

        Head {
            Objects.requireNonNull(hash, "hash");
        }
    }

    JournalFiles {
        Objects.requireNonNull(directory, "directory");
        if (!name.matches("[a-z]+")) {
            throw new IllegalArgumentException("a journal name is lower-case letters: " + name);
        }
    }

    /** The files in {@code directory} that Postern writes (see {@link #POSTERN_FILE}), in no particular order. */
    static List<Path> posternFiles(Path directory) throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(directory)) {
            for (Path p : dir) {
                if (POSTERN_FILE.matcher(p.getFileName().toString()).matches()) {
                    found.add(p);
                }
            }
        }
        return found;
    }

    /** The file rows are appended to. */
    Path active() {
        return directory.resolve(name + ".jsonl");
    }

    /** The lock every writer of this directory holds while it appends, whichever journal it writes. */
    Path lock() {
        return directory.resolve(LOCK_FILE);
    }

    /** The rotated segments, oldest first (by their number, not their names' order). */
    List<Path> segments() throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(directory, name + ".*.jsonl")) {
            for (Path p : dir) {
                if (number(p) > 0) {
                    found.add(p);
                }
            }
        }
        found.sort(Comparator.comparingLong(this::number));
        return found;
    }

    /** Every file of the chain in order: the segments, then the active file if it exists. */
    List<Path> chain() throws IOException {
        List<Path> all = new ArrayList<>(segments());
        if (Files.exists(active(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            all.add(active());
        }
        return all;
    }

    private long number(Path segment) {
        String file = segment.getFileName().toString();
        if (!file.startsWith(name)) {
            return -1;
        }
        Matcher m = SEGMENT_NUMBER.matcher(file.substring(name.length()));
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    /** Renames the active file to the next segment number and makes the rename durable; call under the lock. */
    void rotate() throws IOException {
        List<Path> segments = segments();
        long next = segments.isEmpty() ? 1 : number(segments.get(segments.size() - 1)) + 1;
        Files.move(active(), directory.resolve(String.format("%s.%06d.jsonl", name, next)));
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    /** The head of the newest segment, for an active file that is empty or not there yet; genesis without one. */
    Head headOfSegments(JsonMapper mapper) throws IOException {
        List<Path> segments = segments();
        if (segments.isEmpty()) {
            return Head.GENESIS;
        }
        Path newest = segments.get(segments.size() - 1);
        try (FileChannel in = FileChannel.open(newest, StandardOpenOption.READ)) {
            ChainedJsonLines.Tail tail = ChainedJsonLines.Tail.read(in, in.size(), MAX_ROW_BYTES);
            if (tail.last().isEmpty() || tail.tornBytes().length > 0) {
                throw new IOException(newest + " is empty or ends with an incomplete row; a rotated segment never does");
            }
            JsonNode row = mapper.readTree(tail.last().get());
            JsonNode seq = row == null ? null : row.get("seq");
            if (seq == null || !seq.canConvertToLong()) {
                throw new IOException(newest + ": the last row has no seq; run 'postern audit verify' on this directory");
            }
            return new Head(seq.asLong(), HashChain.sha256(tail.last().get()), Checkpoints.KIND.equals(row.path("kind").textValue()));
        }
    }
}
