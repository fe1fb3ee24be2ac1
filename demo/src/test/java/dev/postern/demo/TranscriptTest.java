package dev.postern.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TranscriptTest {

    private static String print(boolean colour) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Transcript t = new Transcript(new PrintStream(bytes, true, StandardCharsets.UTF_8), colour);
        t.step(5, "http_request GET /api/status");
        t.detail(t.allowed("ALLOWED") + " by rule http.target:inventory");
        t.detail(t.denied("DENIED") + " by rule http.path");
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void plainTranscriptHasNoEscapeCharacters() {
        String plain = print(false);
        assertEquals(" 5  http_request GET /api/status\n    ALLOWED by rule http.target:inventory\n    DENIED by rule http.path\n",
                plain.replace(System.lineSeparator(), "\n").substring(1));
        assertTrue(plain.chars().noneMatch(c -> c == 0x1b));
    }

    @Test
    void colourTranscriptWrapsVerdictsInAnsiAndResets() {
        String coloured = print(true);
        assertTrue(coloured.contains("\u001b[32mALLOWED\u001b[0m"), coloured);
        assertTrue(coloured.contains("\u001b[31mDENIED\u001b[0m"), coloured);
    }
}
