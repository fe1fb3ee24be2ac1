package dev.postern.app.config;

import java.util.Collection;
import java.util.Optional;

/**
 * "Did you mean": the allowed word closest to a mistyped one, when it is at most {@link #MAX_DISTANCE}
 * edits away (an insertion, deletion, substitution or swap of two neighbours each). Stateless.
 */
final class Suggestions {
    static final int MAX_DISTANCE = 2;

    private Suggestions() {
    }

    /** The closest of {@code allowed} to {@code typed} within {@link #MAX_DISTANCE}, the first of equals; empty if none is that close. */
    static Optional<String> closest(String typed, Collection<String> allowed) {
        String best = null;
        int bestDistance = MAX_DISTANCE + 1;
        for (String candidate : allowed) {
            int d = distance(typed, candidate);
            if (d < bestDistance && !candidate.equals(typed)) {
                best = candidate;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** The optimal-string-alignment distance between {@code a} and {@code b}. */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
