package dev.postern.demo;

import java.io.PrintStream;

/**
 * Prints the demo's transcript: numbered steps, indented detail lines, and verdict words that are
 * coloured with ANSI escapes only when {@code colour} is on. Not thread-safe.
 */
final class Transcript {
    private static final String RESET = "\u001b[0m";
    private static final String BOLD = "\u001b[1m";
    private static final String DIM = "\u001b[2m";
    private static final String RED = "\u001b[31m";
    private static final String GREEN = "\u001b[32m";
    private static final String YELLOW = "\u001b[33m";

    private final PrintStream out;
    private final boolean colour;

    Transcript(PrintStream out, boolean colour) {
        this.out = out;
        this.colour = colour;
    }

    void heading(String text) {
        out.println();
        out.println(paint(BOLD, text));
    }

    void line(String text) {
        out.println(text);
    }

    void step(int number, String title) {
        out.println();
        out.println(paint(BOLD, String.format("%2d  %s", number, title)));
    }

    void detail(String text) {
        out.println("    " + text);
    }

    void quiet(String text) {
        out.println("    " + paint(DIM, text));
    }

    String allowed(String word) {
        return paint(GREEN, word);
    }

    String denied(String word) {
        return paint(RED, word);
    }

    String rejected(String word) {
        return paint(YELLOW, word);
    }

    String bold(String word) {
        return paint(BOLD, word);
    }

    private String paint(String style, String text) {
        return colour ? style + text + RESET : text;
    }
}
