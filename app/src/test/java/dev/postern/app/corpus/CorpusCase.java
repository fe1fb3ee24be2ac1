package dev.postern.app.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One row of the malformed-frame corpus ({@code src/test/resources/corpus/manifest.tsv}) with its
 * raw bytes, and the checks every runner applies to a transcript of it. The bytes are stdin exactly
 * as written, after two substitutions: {@code @@HTTP@@} becomes the HTTP target's base URL and
 * {@code @@PAD@@} becomes {@code padBytes} bytes of {@code x}. Immutable.
 */
public record CorpusCase(String name, String file, Prefix prefix, boolean suffix, String stage, String expect,
        boolean closes, String marker, int caseRuns, int padBytes, String note) {

    /** What the runner sends before the case. */
    public enum Prefix { NONE, INITIALIZE, HANDSHAKE }

    /** The request ids the runner's own lines use; every other response belongs to the case. */
    public static final Set<Integer> RUNNER_IDS = Set.of(1, 100, 101);

    private static final Set<String> STAGES = Set.of("none", "framing", "json", "jsonrpc", "mcp", "schema", "policy");

    public CorpusCase {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(prefix, "prefix");
        if (!STAGES.contains(stage)) {
            throw new IllegalArgumentException("stage must be one of " + STAGES + ", got " + stage + " in " + name);
        }
        if (!expect.equals("ok") && !expect.startsWith("tool-error:") && !expect.matches("-?\\d+")) {
            throw new IllegalArgumentException("expect must be ok, tool-error:CODE or an integer, got " + expect + " in " + name);
        }
        if (!marker.startsWith("mk-") || !marker.endsWith("-mk")) {
            throw new IllegalArgumentException("marker must look like mk-NAME-mk, got " + marker + " in " + name);
        }
        if (caseRuns < 0 || padBytes < 0) {
            throw new IllegalArgumentException("caseRuns and padBytes must not be negative in " + name);
        }
    }

    /** Every row of the manifest, in order; fails on a malformed row or a repeated name or marker. */
    public static List<CorpusCase> load() {
        String manifest = new String(resource("manifest.tsv"), StandardCharsets.UTF_8);
        List<CorpusCase> cases = new ArrayList<>();
        boolean header = true;
        for (String line : manifest.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            if (header) {
                header = false;
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length != 11) {
                throw new IllegalStateException("manifest row needs 11 tab-separated fields: " + line);
            }
            cases.add(new CorpusCase(f[0], f[1], Prefix.valueOf(f[2].toUpperCase(java.util.Locale.ROOT)), yesNo(f[3]),
                    f[4], f[5], outcome(f[6]), f[7], Integer.parseInt(f[8]), Integer.parseInt(f[9]), f[10]));
        }
        long names = cases.stream().map(CorpusCase::name).distinct().count();
        long markers = cases.stream().map(CorpusCase::marker).distinct().count();
        if (names != cases.size() || markers != cases.size()) {
            throw new IllegalStateException("case names and markers must be unique");
        }
        return List.copyOf(cases);
    }

    /** The whole stdin for one run: prefix, the case's bytes, and the suffix. */
    public byte[] input(String httpBase) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        if (prefix != Prefix.NONE) {
            b.writeBytes(utf8(initialize(1)));
        }
        if (prefix == Prefix.HANDSHAKE) {
            b.writeBytes(utf8(INITIALIZED));
        }
        b.writeBytes(caseBytes(httpBase));
        if (suffix) {
            if (prefix == Prefix.NONE) {
                b.writeBytes(utf8(initialize(100)));
            }
            if (prefix != Prefix.HANDSHAKE) {
                b.writeBytes(utf8(INITIALIZED));
            }
            b.writeBytes(utf8(suffixCall(httpBase)));
        }
        return b.toByteArray();
    }

    /** The case's own bytes, substituted. */
    public byte[] caseBytes(String httpBase) {
        byte[] raw = replace(resource(file), "@@HTTP@@", httpBase.getBytes(StandardCharsets.US_ASCII));
        byte[] pad = new byte[padBytes];
        Arrays.fill(pad, (byte) 'x');
        return replace(raw, "@@PAD@@", pad);
    }

    /** The marker of the valid call after the case: shares no marker text with any case. */
    public String suffixMarker() {
        return "after-" + name;
    }

    /** The path the suffix call asks for. */
    public String suffixPath() {
        return "/v1/" + suffixMarker();
    }

    public boolean suffixRuns() {
        return suffix && !closes;
    }

    static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    static String initialize(int id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"corpus\",\"version\":\"1\"}}}\n";
    }

    String suffixCall(String httpBase) {
        return "{\"jsonrpc\":\"2.0\",\"id\":101,\"method\":\"tools/call\",\"params\":{\"name\":\"http_request\","
                + "\"arguments\":{\"method\":\"GET\",\"url\":\"" + httpBase + suffixPath() + "\"}}}\n";
    }

    /**
     * Checks the protocol side of a run: the runner's own lines were answered, the case got exactly
     * one answer of the expected class, and the session closed or continued as the manifest says.
     *
     * @param messages stdout, already checked to be protocol only
     * @param closed whether the run ended as a closed session (exit status 2)
     */
    public void assertTranscript(List<JsonNode> messages, boolean closed, String context) {
        String where = name + " (" + note + "): " + messages + "\n" + context;
        assertEquals(closes, closed, "session " + (closes ? "must close" : "must continue") + " — " + where);
        if (prefix != Prefix.NONE) {
            assertTrue(result(messages, 1) != null, "the prefix's initialize is answered — " + where);
        }
        List<JsonNode> caseAnswers = new ArrayList<>();
        for (JsonNode m : messages) {
            JsonNode id = m.get("id");
            if (!(id.isIntegralNumber() && RUNNER_IDS.contains(id.asInt()))) {
                caseAnswers.add(m);
            }
        }
        assertEquals(1, caseAnswers.size(), "exactly one answer to the case — " + where);
        JsonNode answer = caseAnswers.get(0);
        if (expect.equals("ok")) {
            assertTrue(answer.has("result"), where);
            assertFalse(answer.get("result").get("isError").asBoolean(), where);
        } else if (expect.startsWith("tool-error:")) {
            JsonNode r = answer.get("result");
            assertTrue(r != null && r.get("isError").asBoolean(), "an isError tool result — " + where);
            assertEquals(expect.substring("tool-error:".length()), r.get("structuredContent").get("error").get("code").textValue(), where);
        } else {
            assertTrue(answer.has("error"), "an error response — " + where);
            assertEquals(Integer.parseInt(expect), answer.get("error").get("code").asInt(), where);
            if (expect.equals("-32700")) {
                assertTrue(answer.get("id").isNull(), "a parse error carries id null — " + where);
            }
        }
        if (closes) {
            assertEquals(answer, messages.get(messages.size() - 1), "nothing is written after the closing error — " + where);
            assertTrue(result(messages, 101) == null, "the suffix call is never answered — " + where);
        } else if (suffix) {
            JsonNode r = result(messages, 101);
            assertTrue(r != null && !r.get("isError").asBoolean(), "the suffix call is answered with a success — " + where);
            if (prefix == Prefix.NONE) {
                assertTrue(result(messages, 100) != null, "the suffix's initialize is answered — " + where);
            }
        }
    }

    /**
     * Checks the executor side: the case's marker reached an executor exactly {@code caseRuns}
     * times, and the suffix's marker once if the session continued, never if it closed.
     *
     * @param actions one string per action that reached an executor, holding everything it carried
     */
    public void assertActions(List<String> actions, String context) {
        String where = name + ": actions " + actions + "\n" + context;
        assertEquals(caseRuns, actions.stream().filter(a -> a.contains(marker)).count(), "case marker " + marker + " — " + where);
        assertEquals(suffixRuns() ? 1 : 0, actions.stream().filter(a -> a.contains(suffixMarker())).count(),
                "suffix marker " + suffixMarker() + " — " + where);
        assertEquals(caseRuns + (suffixRuns() ? 1 : 0), actions.size(), "no other action ran — " + where);
    }

    private static JsonNode result(List<JsonNode> messages, int id) {
        for (JsonNode m : messages) {
            if (m.get("id").isIntegralNumber() && m.get("id").asInt() == id && m.has("result")) {
                return m.get("result");
            }
        }
        return null;
    }

    private static boolean yesNo(String s) {
        if (!s.equals("yes") && !s.equals("no")) {
            throw new IllegalArgumentException("suffix must be yes or no, got " + s);
        }
        return s.equals("yes");
    }

    private static boolean outcome(String s) {
        if (!s.equals("closed") && !s.equals("continues")) {
            throw new IllegalArgumentException("outcome must be closed or continues, got " + s);
        }
        return s.equals("closed");
    }

    private static byte[] resource(String name) {
        try (InputStream in = CorpusCase.class.getResourceAsStream("/corpus/" + name)) {
            if (in == null) {
                throw new IllegalStateException("missing corpus file /corpus/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] replace(byte[] in, String token, byte[] with) {
        byte[] t = token.getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + with.length);
        int i = 0;
        while (i < in.length) {
            if (i + t.length <= in.length && Arrays.equals(in, i, i + t.length, t, 0, t.length)) {
                out.writeBytes(with);
                i += t.length;
            } else {
                out.write(in[i]);
                i++;
            }
        }
        return out.toByteArray();
    }

    @Override
    public String toString() {
        return name;
    }
}
