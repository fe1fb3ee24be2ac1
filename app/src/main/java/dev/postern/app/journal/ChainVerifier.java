package dev.postern.app.journal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Checks the hash chains of a journal directory (DESIGN §6): in each file every row is one strict
 * JSON object ending in a line feed, {@code seq} counts 1, 2, 3…, and {@code prev} is the SHA-256
 * of the previous row's exact bytes (64 zeros for the first). Streams each file, holding two rows
 * at a time. A chain cannot show that rows were cut from its end or that its last row changed; the
 * head hash it reports is what an operator keeps elsewhere to catch that. Immutable; thread-safe.
 */
public final class ChainVerifier {
    /** The longest row the verifier reads; the journal writes rows far shorter. */
    public static final int MAX_ROW_BYTES = 1 << 20;
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private final RowParser parser;

    /** A verifier that reads each row with {@code parser}, which must refuse anything but exactly one strict JSON value. */
    public ChainVerifier(RowParser parser) {
        this.parser = Objects.requireNonNull(parser, "parser");
    }

    /** Where a chain first fails: a 1-based row number (0 for the file as a whole) and why, as a sentence naming the row. */
    public record Break(long row, String reason) {
        public Break {
            if (row < 0) {
                throw new IllegalArgumentException("row must not be negative");
            }
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** One file's verdict: how many rows it has, the hash of its last row, and its first break if any. */
    public record FileResult(String file, long rows, String headSha256, Optional<Break> broken) {
        public FileResult {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(headSha256, "headSha256");
            Objects.requireNonNull(broken, "broken");
        }

        public boolean intact() {
            return broken.isEmpty();
        }
    }

    /** Both files' verdicts, decisions first. */
    public record Result(Path directory, List<FileResult> files) {
        public Result {
            Objects.requireNonNull(directory, "directory");
            files = List.copyOf(files);
        }

        public boolean intact() {
            return files.stream().allMatch(FileResult::intact);
        }
    }

    public Result verify(Path directory) {
        return new Result(directory, List.of(
                verifyFile(directory.resolve(FileAuditJournal.DECISIONS)),
                verifyFile(directory.resolve(FileAuditJournal.ACTIONS))));
    }

    FileResult verifyFile(Path file) {
        String name = file.getFileName().toString();
        if (!Files.isRegularFile(file)) {
            return new FileResult(name, 0, HashChain.GENESIS, Optional.of(new Break(0, "the file is missing or not a regular file")));
        }
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 64 * 1024)) {
            RowReader rows = new RowReader(in);
            String expectedPrev = HashChain.GENESIS;
            long n = 0;
            Row current = rows.next();
            while (current != null) {
                n++;
                Row next = rows.next();
                Optional<Break> broken = check(n, current, expectedPrev, next);
                if (broken.isPresent()) {
                    return new FileResult(name, n, expectedPrev, broken);
                }
                expectedPrev = HashChain.sha256(current.bytes());
                current = next;
            }
            return new FileResult(name, n, expectedPrev, Optional.empty());
        } catch (IOException e) {
            return new FileResult(name, 0, HashChain.GENESIS, Optional.of(new Break(0, "the file cannot be read: " + e.getMessage())));
        }
    }

    private Optional<Break> check(long n, Row row, String expectedPrev, Row next) {
        JsonNode node;
        try {
            node = object(row);
        } catch (RowError e) {
            return broken(n, e.getMessage());
        }
        JsonNode seq = node.get("seq");
        if (seq == null || !seq.isIntegralNumber() || !seq.bigIntegerValue().equals(BigInteger.valueOf(n))) {
            return broken(n, "has seq " + (seq == null ? "missing" : seq.toString()) + ", expected " + n
                    + ": a row before it was removed, added or moved");
        }
        JsonNode prev = node.get("prev");
        if (prev == null || !prev.isTextual() || !SHA256.matcher(prev.textValue()).matches()) {
            return broken(n, "has no prev hash of 64 lower-case hex digits");
        }
        if (prev.textValue().equals(expectedPrev)) {
            return Optional.empty();
        }
        if (n == 1) {
            return broken(1, "has prev " + prev.textValue() + ", but a first row's prev is 64 zeros");
        }
        if (next != null && recordsAsPrev(next, HashChain.sha256(row.bytes()))) {
            // This row and its successor agree, so it is the row before that no longer hashes to what this one recorded.
            return broken(n - 1, "was changed after it was written: its SHA-256 is " + expectedPrev
                    + ", but row " + n + " recorded " + prev.textValue());
        }
        return broken(n, "has prev " + prev.textValue() + ", but row " + (n - 1) + " hashes to " + expectedPrev
                + ": this row or the one before it was changed");
    }

    private boolean recordsAsPrev(Row row, String hash) {
        try {
            return hash.equals(object(row).path("prev").textValue());
        } catch (RowError e) {
            return false;
        }
    }

    /** The row as one strict JSON object, or why it is not one. */
    private JsonNode object(Row row) throws RowError {
        if (row.tooLong()) {
            throw new RowError("is longer than " + MAX_ROW_BYTES + " bytes");
        }
        if (!row.terminated()) {
            throw new RowError("is cut off: the file ends without a line feed");
        }
        if (row.bytes().length == 0) {
            throw new RowError("is empty");
        }
        String text;
        try {
            text = decode(row.bytes());
        } catch (CharacterCodingException e) {
            throw new RowError("is not valid UTF-8");
        }
        JsonNode node;
        try {
            node = parser.parse(text);
        } catch (IllegalArgumentException e) {
            throw new RowError("is not one strict JSON value (" + e.getMessage() + ")");
        }
        if (!node.isObject()) {
            throw new RowError("is JSON but not an object");
        }
        return node;
    }

    private static String decode(byte[] bytes) throws CharacterCodingException {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    }

    private static Optional<Break> broken(long row, String why) {
        return Optional.of(new Break(row, "row " + row + ' ' + why));
    }

    /** Why a row is not a journal row; carries no stack trace. */
    private static final class RowError extends Exception {
        private static final long serialVersionUID = 1L;

        RowError(String message) {
            super(message, null, false, false);
        }
    }

    /** One row's bytes without its line feed; whether a line feed ended it; whether it was cut at the cap. */
    private record Row(byte[] bytes, boolean terminated, boolean tooLong) {
    }

    /** Splits a stream on LF only (a CR stays in the row, where strict JSON refuses it). */
    private static final class RowReader {
        private final InputStream in;

        RowReader(InputStream in) {
            this.in = in;
        }

        Row next() throws IOException {
            ByteArrayOutputStream row = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) != -1) {
                if (b == '\n') {
                    return new Row(row.toByteArray(), true, false);
                }
                if (row.size() == MAX_ROW_BYTES) {
                    return new Row(row.toByteArray(), false, true);
                }
                row.write(b);
            }
            return row.size() == 0 ? null : new Row(row.toByteArray(), false, false);
        }
    }
}
