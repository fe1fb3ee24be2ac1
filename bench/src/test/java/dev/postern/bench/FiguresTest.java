package dev.postern.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class FiguresTest {
    private static final Figures.Figure STARTUP = new Figures.Figure("start-up", "ms", false);
    private static final Figures.Figure COLD = new Figures.Figure("cold throughput", "calls/s", true);

    @Test
    void tablePutsEachCommandBesideItsRatioToTheReferenceAndTheFloor() {
        Figures f = new Figures();
        f.put(STARTUP, "postern", 150);
        f.put(STARTUP, "ts", 250);
        f.put(STARTUP, "floor", 100);
        f.put(COLD, "postern", 20000);
        f.put(COLD, "ts", 8000);
        List<String> rows = f.table(List.of("postern", "ts", "floor"), "ts", "floor");
        assertEquals("| figure | postern | ts | floor | postern ÷ ts | floor ÷ ts | postern ÷ floor | ts ÷ floor | better |", rows.get(0));
        assertEquals("| start-up (ms) | 150 | 250 | 100 | 0.60× | 0.40× | 1.50× | 2.50× | lower |", rows.get(2));
        assertEquals("| cold throughput (calls/s) | 20,000 | 8,000 | — | 2.50× | — | — | — | higher |", rows.get(3));
    }

    @Test
    void withoutTheReferenceOrTheFloorTheirRatioColumnsAreLeftOut() {
        Figures f = new Figures();
        f.put(STARTUP, "postern", 150.4);
        List<String> rows = f.table(List.of("postern"), "ts", "floor");
        assertEquals("| figure | postern | better |", rows.get(0));
        assertEquals("| start-up (ms) | 150 | lower |", rows.get(2));
    }
}
