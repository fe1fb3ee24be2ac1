package dev.postern.journal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.transport.StrictUtf8;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Checks the hash chains of a journal directory (DESIGN §6): each journal is its rotated segments
 * ({@code NAME.000001.jsonl}…) and then {@code NAME.jsonl}, one chain running across them; every row
 * is one strict JSON object ending in a line feed, {@code seq} counts 1, 2, 3… across the files, and
 * {@code prev} is the SHA-256 of the previous row's exact bytes (64 zeros for the very first). Also
 * lists intent rows that no outcome row names (interrupted actions, which are not tampering). Streams
 * each file, holding two rows at a time. A chain cannot show that rows were cut from its end or that
 * its last row changed; the head hash it reports is what an operator keeps elsewhere to catch that.
 * Checkpoint rows are checked too: each must sign the row before it; with a public key their Ed25519
 * signatures are verified, which catches a chain recomputed from some row on by someone without the
 * private key, and the rows after the last checkpoint are counted (unsigned). Immutable; thread-safe.
 */
public final class ChainVerifier {
    /** The longest row the verifier reads: the same limit the journal writes under. */
    public static final int MAX_ROW_BYTES = JournalFiles.MAX_ROW_BYTES;
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    private final RowParser parser;

    /** A verifier that reads each row with {@code parser}, which must refuse anything but exactly one strict JSON value. */
    public ChainVerifier(RowParser parser) {
        this.parser = Objects.requireNonNull(parser, "parser");
    }


    /** Where a chain first fails: the file, a 1-based row number in it (0 for the file as a whole) and why, as a sentence naming the row. */
    public record Break(String file, long row, String reason) {
        public Break {
            Objects.requireNonNull(file, "file");
            if (row < 0) {
                throw new IllegalArgumentException("row must not be negative");
            }
            Objects.requireNonNull(reason, "reason");
        }
    }

    /** An intent row no outcome row names: the action was interrupted (e.g. kill -9) or is still running. */
    public record Interrupted(String file, long row, long seq) {
        public Interrupted {
            Objects.requireNonNull(file, "file");
        }
    }

    /**
     * What a journal's checkpoints showed: how many there are, the seq of the last one, and whether
     * their signatures were verified (only with a public key) or only their place in the chain checked.
     */
    public record Signing(long checkpoints, long lastCheckpointSeq, boolean signaturesVerified) {
        static final Signing NONE = new Signing(0, 0, false);

        public Signing {
            if (checkpoints < 0 || lastCheckpointSeq < 0) {
                throw new IllegalArgumentException("counts must not be negative");
            }
        }
    }

    /**
     * One journal's verdict: its name ({@code actions.jsonl}), the files its chain runs through, how many
     * rows, the hash of its last row, its first break if any, its interrupted actions and its checkpoints.
     */
    public record FileResult(String file, List<String> files, long rows, String headSha256, Optional<Break> broken,
                             List<Interrupted> interrupted, Signing signing) {
        public FileResult {
            Objects.requireNonNull(file, "file");
            files = List.copyOf(files);
            Objects.requireNonNull(headSha256, "headSha256");
            Objects.requireNonNull(broken, "broken");
            interrupted = List.copyOf(interrupted);
            Objects.requireNonNull(signing, "signing");
        }

        FileResult(String file, List<String> files, long rows, String headSha256, Optional<Break> broken, List<Interrupted> interrupted) {
            this(file, files, rows, headSha256, broken, interrupted, Signing.NONE);
        }

        /** Rows after the last checkpoint: not covered by any signature (normal for a gateway still running). */
        public long unsignedRows() {
            return rows - signing.lastCheckpointSeq();
        }

        public boolean intact() {
            return broken.isEmpty();
        }
    }

    /** Both journals' verdicts, decisions first. */
    public record Result(Path directory, List<FileResult> files) {
        public Result {
            Objects.requireNonNull(directory, "directory");
            files = List.copyOf(files);
        }

        public boolean intact() {
            return files.stream().allMatch(FileResult::intact);
        }

        /** True when the directory holds no file of either journal: nothing to verify here. */
        public boolean noJournal() {
            return files.stream().allMatch(f -> f.files().isEmpty());
        }
    }

    public Result verify(Path directory) {
        return verify(directory, Optional.empty());
    }

    /** As {@link #verify(Path)}; with {@code publicKey}, every checkpoint's signature is verified with it. */
    public Result verify(Path directory, Optional<PublicKey> publicKey) {
        return new Result(directory, List.of(
                verifyJournal(new JournalFiles(directory, FileAuditJournal.DECISIONS_NAME), publicKey),
                verifyJournal(new JournalFiles(directory, FileAuditJournal.ACTIONS_NAME), publicKey)));
    }

    FileResult verifyJournal(JournalFiles journal) {
        return verifyJournal(journal, Optional.empty());
    }

    /**
     * Verifies one journal's chain. A gateway may rotate the file while this reads it; a break seen
     * while the list of files changed under it is checked once more before it is reported.
     */
    FileResult verifyJournal(JournalFiles journal, Optional<PublicKey> publicKey) {
        List<Path> before = segmentsOrEmpty(journal);
        FileResult first = verifyOnce(journal, publicKey);
        if (first.intact() || before.equals(segmentsOrEmpty(journal))) {
            return first;
        }
        return verifyOnce(journal, publicKey);
    }

    private List<Path> segmentsOrEmpty(JournalFiles journal) {
        try {
            return journal.segments();
        } catch (IOException e) {
            return List.of();
        }
    }

    private FileResult verifyOnce(JournalFiles journal, Optional<PublicKey> publicKey) {
        String name = journal.active().getFileName().toString();
        List<Path> chain;
        try {
            chain = journal.chain();
        } catch (IOException e) {
            return new FileResult(name, List.of(), 0, HashChain.GENESIS,
                    Optional.of(new Break(name, 0, "the directory cannot be listed: " + e.getMessage())), List.of());
        }
        List<String> names = chain.stream().map(p -> p.getFileName().toString()).toList();
        if (chain.isEmpty()) {
            return new FileResult(name, names, 0, HashChain.GENESIS,
                    Optional.of(new Break(name, 0, "the file is missing or not a regular file")), List.of());
        }
        String expectedPrev = HashChain.GENESIS;
        long n = 0;
        long checkpoints = 0;
        long lastCheckpoint = 0;
        Map<Long, Interrupted> open = new LinkedHashMap<>();
        for (int f = 0; f < chain.size(); f++) {
            Path file = chain.get(f);
            String fileName = names.get(f);
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return new FileResult(name, names, n, expectedPrev,
                        Optional.of(new Break(fileName, 0, "the file is not a regular file")), List.of());
            }
            try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 64 * 1024)) {
                RowReader rows = new RowReader(in);
                long line = 0;
                Row current = rows.next();
                while (current != null) {
                    n++;
                    line++;
                    Row next = rows.next();
                    String before = line > 1 ? "row " + (line - 1) : f > 0 ? "the last row of " + names.get(f - 1) : null;
                    Checked checked = check(line, n, current, expectedPrev, before, next);
                    if (checked.broken().isPresent()) {
                        return new FileResult(name, names, n, expectedPrev,
                                Optional.of(new Break(fileName, checked.brokenRow(), checked.broken().get())), List.of());
                    }
                    if (Checkpoints.KIND.equals(checked.row().path("kind").textValue())) {
                        Optional<String> bad = checkpoint(checked.row(), name, n, expectedPrev, publicKey);
                        if (bad.isPresent()) {
                            return new FileResult(name, names, n, expectedPrev,
                                    Optional.of(new Break(fileName, line, "row " + line + ' ' + bad.get())), List.of());
                        }
                        checkpoints++;
                        lastCheckpoint = n;
                    }
                    track(open, checked.row(), fileName, line, n);
                    expectedPrev = HashChain.sha256(current.bytes());
                    current = next;
                }
            } catch (IOException e) {
                return new FileResult(name, names, n, expectedPrev,
                        Optional.of(new Break(fileName, 0, "the file cannot be read: " + e.getMessage())), List.of());
            }
        }
        return new FileResult(name, names, n, expectedPrev, Optional.empty(), List.copyOf(open.values()),
                new Signing(checkpoints, lastCheckpoint, publicKey.isPresent()));
    }

    /**
     * Why checkpoint row {@code seq} of journal {@code journal} is wrong, if it is: it must sign the row
     * before it ({@code prevSha256}), and with a key its signature must verify.
     */
    private static Optional<String> checkpoint(JsonNode row, String journal, long seq, String prevSha256, Optional<PublicKey> key) {
        JsonNode head = row.path("head");
        if (!journal.equals(row.path("journal").textValue())) {
            return Optional.of("is a checkpoint of " + row.path("journal") + ", not of " + journal + ": it was moved here");
        }
        if (!head.path("seq").canConvertToLong() || head.path("seq").asLong() != seq - 1
                || !prevSha256.equals(head.path("sha256").textValue())) {
            return Optional.of("is a checkpoint that does not sign the row before it (seq " + (seq - 1) + ", sha256 " + prevSha256 + ')');
        }
        byte[] signature;
        try {
            signature = Base64.getDecoder().decode(row.path("signature").asText(""));
        } catch (IllegalArgumentException e) {
            signature = new byte[0];
        }
        if (!Checkpoints.ALGORITHM.equals(row.path("alg").textValue()) || signature.length != 64) {
            return Optional.of("is a checkpoint without an Ed25519 signature");
        }
        if (key.isEmpty()) {
            return Optional.empty();
        }
        try {
            Signature verifier = Signature.getInstance(Checkpoints.ALGORITHM);
            verifier.initVerify(key.get());
            verifier.update(Checkpoints.message(journal, seq - 1, prevSha256));
            if (verifier.verify(signature)) {
                return Optional.empty();
            }
        } catch (GeneralSecurityException e) {
            // Falls through: a signature that cannot be checked is not a valid one.
        }
        return Optional.of("is a checkpoint whose signature does not verify with the given public key: the rows up to it were "
                + "rewritten (the chain recomputed by someone without the private key), or another key signed it");
    }

    /** Remembers an intent row until an outcome row names its seq. */
    private void track(Map<Long, Interrupted> open, JsonNode row, String file, long line, long seq) {
        String kind = row.path("kind").asText("");
        if (kind.equals("intent")) {
            open.put(seq, new Interrupted(file, line, seq));
        } else if (kind.equals("outcome") && row.path("intent").canConvertToLong()) {
            open.remove(row.path("intent").asLong());
        }
    }

    /** A row parsed and checked: the node, or the row to blame and why. */
    private record Checked(JsonNode row, long brokenRow, Optional<String> broken) {
        static Checked ok(JsonNode row) {
            return new Checked(row, 0, Optional.empty());
        }

        static Checked broken(long row, String why) {
            return new Checked(null, row, Optional.of("row " + row + ' ' + why));
        }
    }

    /**
     * Checks row {@code line} of a file, the {@code n}th of the chain; {@code before} names the row
     * before it (null for the chain's first) for a message that blames it.
     */
    private Checked check(long line, long n, Row row, String expectedPrev, String before, Row next) {
        JsonNode node;
        try {
            node = object(row);
        } catch (RowError e) {
            return Checked.broken(line, e.getMessage());
        }
        JsonNode seq = node.get("seq");
        if (seq == null || !seq.isIntegralNumber() || !seq.bigIntegerValue().equals(BigInteger.valueOf(n))) {
            return Checked.broken(line, "has seq " + (seq == null ? "missing" : seq.toString()) + ", expected " + n
                    + ": a row before it was removed, added or moved");
        }
        JsonNode prev = node.get("prev");
        if (prev == null || !prev.isTextual() || !SHA256.matcher(prev.textValue()).matches()) {
            return Checked.broken(line, "has no prev hash of 64 lower-case hex digits");
        }
        if (prev.textValue().equals(expectedPrev)) {
            return Checked.ok(node);
        }
        if (before == null) {
            return Checked.broken(line, "has prev " + prev.textValue() + ", but a first row's prev is 64 zeros");
        }
        if (line > 1 && next != null && recordsAsPrev(next, HashChain.sha256(row.bytes()))) {
            // This row and its successor agree, so it is the row before that no longer hashes to what this one recorded.
            return Checked.broken(line - 1, "was changed after it was written: its SHA-256 is " + expectedPrev
                    + ", but row " + line + " recorded " + prev.textValue());
        }
        return Checked.broken(line, "has prev " + prev.textValue() + ", but " + before + " hashes to " + expectedPrev
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

    private String decode(byte[] bytes) throws CharacterCodingException {
        return StrictUtf8.decode(bytes);
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
