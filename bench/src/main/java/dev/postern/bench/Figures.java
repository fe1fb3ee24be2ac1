package dev.postern.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The DESIGN §9 figures of one run, one number per figure and command, printed at the end as one
 * Markdown table with each command's ratio to a reference peer (the TypeScript SDK) and to the JVM
 * floor, so a figure bound by the driver shows as the floor's own. Not thread-safe; the driver's
 * main thread fills it.
 */
final class Figures {
    /** A figure's name, its unit and whether more is better (throughput) or worse (time, memory). */
    record Figure(String name, String unit, boolean higherIsBetter) {
    }

    private final Map<Figure, Map<String, Double>> values = new LinkedHashMap<>();

    void put(Figure figure, String label, double value) {
        values.computeIfAbsent(figure, f -> new LinkedHashMap<>()).put(label, value);
    }

    /**
     * The table: one row per figure, one column per command (value and ratio to {@code reference}),
     * then the floor's ratio column. A ratio is this command's value over the reference's, whatever
     * the direction; the last column says which direction is better.
     */
    List<String> table(List<String> labels, String reference, String floor) {
        List<String> rows = new ArrayList<>();
        StringBuilder head = new StringBuilder("| figure |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String l : labels) {
            head.append(' ').append(l).append(" |");
            rule.append("---|");
        }
        boolean hasRef = labels.contains(reference);
        boolean hasFloor = labels.contains(floor);
        for (String l : labels) {
            if (hasRef && !l.equals(reference)) {
                head.append(' ').append(l).append(" ÷ ").append(reference).append(" |");
                rule.append("---|");
            }
        }
        for (String l : labels) {
            if (hasFloor && !l.equals(floor)) {
                head.append(' ').append(l).append(" ÷ ").append(floor).append(" |");
                rule.append("---|");
            }
        }
        head.append(" better |");
        rule.append("---|");
        rows.add(head.toString());
        rows.add(rule.toString());
        values.forEach((figure, byLabel) -> {
            StringBuilder row = new StringBuilder("| ").append(figure.name()).append(" (").append(figure.unit()).append(") |");
            for (String l : labels) {
                Double v = byLabel.get(l);
                row.append(' ').append(v == null ? "—" : number(v)).append(" |");
            }
            for (String l : labels) {
                if (hasRef && !l.equals(reference)) {
                    row.append(' ').append(ratio(byLabel.get(l), byLabel.get(reference))).append(" |");
                }
            }
            for (String l : labels) {
                if (hasFloor && !l.equals(floor)) {
                    row.append(' ').append(ratio(byLabel.get(l), byLabel.get(floor))).append(" |");
                }
            }
            row.append(figure.higherIsBetter() ? " higher |" : " lower |");
            rows.add(row.toString());
        });
        return rows;
    }

    static String ratio(Double value, Double reference) {
        if (value == null || reference == null || reference == 0) {
            return "—";
        }
        return String.format(Locale.ROOT, "%.2f×", value / reference);
    }

    private static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e12) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%,.0f" : "%.1f", v);
    }
}
