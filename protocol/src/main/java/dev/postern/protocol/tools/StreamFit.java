package dev.postern.protocol.tools;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * How the byte streams of one result (an HTTP body, an SSH command's stdout and stderr) go out so
 * that the result fits the gateway's cap: as text when they are valid UTF-8 (and text is allowed),
 * else base64, as {@link #natural}; when that would not fit, first the streams whose base64 renders
 * smaller switch to it, largest saving first, until the streams fit; and when even that does not fit,
 * each is cut to a share of the room (whole if it needs less) and flagged. Base64 is 4/3 of the bytes
 * and never escaped (8/3 in a success's two copies); escaped text is up to 13 bytes a byte (a NUL).
 * Stateless.
 */
final class StreamFit {
    private StreamFit() {
    }

    /** One stream as it goes out: its value, whether that is base64, and whether it was cut to fit. */
    record Piece(String value, boolean base64, boolean cut) {
        String encoding() {
            return base64 ? "base64" : "text";
        }

        long cost() {
            return base64 ? 2L * value.length() + 6 : RenderedSize.inBothCopies(value);
        }
    }

    /** A stream of bytes and whether it may go out as text at all (an HTTP body of a textual type, any SSH stream). */
    record Stream(byte[] bytes, boolean textAllowed) {
    }

    /** The stream as text when allowed and valid UTF-8 (a cut mid-character is not), else base64: the rendering whatever the size. */
    static Piece natural(Stream s) {
        Optional<String> text = s.textAllowed() ? ToolResults.utf8(s.bytes()) : Optional.empty();
        return text.map(t -> new Piece(t, false, false))
                .orElseGet(() -> new Piece(Base64.getEncoder().encodeToString(s.bytes()), true, false));
    }

    /**
     * The streams fitted into {@code room} bytes (what they may add to the result, both copies
     * counted): the natural pieces if they fit; else base64 for the streams it shrinks, largest
     * saving first, until they fit; else each piece in its smaller encoding cut to its share.
     */
    static List<Piece> fit(List<Stream> streams, long room) {
        List<Piece> pieces = new ArrayList<>();
        streams.forEach(s -> pieces.add(natural(s)));
        long total = pieces.stream().mapToLong(Piece::cost).sum();
        if (total <= room) {
            return pieces;
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < pieces.size(); i++) {
            order.add(i);
        }
        long[] saving = new long[pieces.size()];
        for (int i = 0; i < pieces.size(); i++) {
            saving[i] = pieces.get(i).base64() ? 0 : pieces.get(i).cost() - base64Cost(streams.get(i).bytes().length);
        }
        order.sort(Comparator.comparingLong((Integer i) -> saving[i]).reversed());
        for (int i : order) {
            if (total <= room) {
                return pieces;
            }
            if (saving[i] > 0) {
                total -= saving[i];
                pieces.set(i, new Piece(Base64.getEncoder().encodeToString(streams.get(i).bytes()), true, false));
            }
        }
        if (total <= room) {
            return pieces;
        }
        return cut(streams, pieces, room);
    }

    /** Each piece cut to its share of {@code room}: the cheaper pieces first, each whole if it needs no more than an equal share of what is left. */
    private static List<Piece> cut(List<Stream> streams, List<Piece> pieces, long room) {
        List<Piece> out = new ArrayList<>(pieces);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < pieces.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingLong(i -> pieces.get(i).cost()));
        long left = Math.max(0, room);
        int remaining = pieces.size();
        for (int i : order) {
            long share = left / remaining--;
            Piece p = pieces.get(i);
            if (p.cost() > share) {
                p = p.base64() ? cutBase64(streams.get(i).bytes(), share) : cutText(p.value(), share);
            }
            out.set(i, p);
            left -= p.cost();
        }
        return out;
    }

    /** The longest prefix of {@code bytes} whose base64 costs at most {@code share}: whole 3-byte groups, so no padding but at the end. */
    private static Piece cutBase64(byte[] bytes, long share) {
        long groups = Math.max(0, (share - 6) / 8);
        int n = (int) Math.min(bytes.length, groups * 3);
        return new Piece(Base64.getEncoder().encodeToString(Arrays.copyOf(bytes, n)), true, true);
    }

    /** The longest prefix of {@code text}, cut between characters, whose rendering costs at most {@code share}. */
    private static Piece cutText(String text, long share) {
        long cost = 6;
        int end = 0;
        while (end < text.length()) {
            int add = RenderedSize.inBothCopies(text, end);
            if (cost + add > share) {
                break;
            }
            cost += add;
            end += Character.isHighSurrogate(text.charAt(end)) && end + 1 < text.length()
                    && Character.isLowSurrogate(text.charAt(end + 1)) ? 2 : 1;
        }
        return new Piece(text.substring(0, end), false, true);
    }

    static long base64Cost(int bytes) {
        return 2L * 4 * ((bytes + 2L) / 3) + 6;
    }
}
