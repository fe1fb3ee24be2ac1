package dev.postern.policy.outcome;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sql_query outcome checks itself, renders its rows as one stream, and shows what the mask must see. */
class SqlOutcomeValuesTest {
    private static final List<SqlRowsOutcome.Column> TWO = List.of(new SqlRowsOutcome.Column("id", "int4"),
            new SqlRowsOutcome.Column("blob", "bytea"));

    private static SqlRowsOutcome outcome(List<List<SqlValue>> rows, long count, boolean truncated) {
        return new SqlRowsOutcome("shop", "by_id", TWO, rows, count, truncated);
    }

    @Test
    void rowsRenderAsOneStreamOneLinePerRowBytesRawAndNullsEmpty() {
        SqlRowsOutcome o = outcome(List.of(
                List.of(new SqlValue.Whole(1), new SqlValue.Bytes(new byte[] {0, 'z'})),
                List.of(new SqlValue.Null(), new SqlValue.Text("ü"))), 2, true);
        List<CapturedStream> streams = o.streams();
        assertEquals(1, streams.size());
        assertEquals("rows", streams.get(0).name());
        assertTrue(streams.get(0).truncated());
        byte[] expected = ("1" + "\0z" + "\n" + "ü" + "\n").getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(expected, streams.get(0).bytes());
        assertFalse(outcome(List.of(), 0, false).streams().get(0).truncated());
        assertArrayEquals(new byte[0], outcome(List.of(), 0, false).streams().get(0).bytes());
    }

    @Test
    void visiblePartsNameTheDatabaseStatementColumnsTypesAndRows() {
        SqlRowsOutcome o = outcome(List.of(List.of(new SqlValue.Whole(7), new SqlValue.Text("x"))), 1, false);
        List<String> parts = new ArrayList<>();
        o.visibleParts().forEach(p -> parts.add(new String(p, StandardCharsets.UTF_8)));
        assertEquals(List.of("shop", "by_id", "id", "int4", "blob", "bytea", "7x\n"), parts);
    }

    @Test
    void aRowOfTheWrongWidthOrACountThatDoesNotMatchIsRefused() {
        IllegalArgumentException width = assertThrows(IllegalArgumentException.class,
                () -> outcome(List.of(List.of(new SqlValue.Whole(1))), 1, false));
        assertTrue(width.getMessage().contains("1 values for 2 columns"), width.getMessage());
        assertThrows(IllegalArgumentException.class, () -> outcome(List.of(), -1, false));
        assertThrows(IllegalArgumentException.class,
                () -> outcome(List.of(List.of(new SqlValue.Whole(1), new SqlValue.Null())), 2, false));
        // A statement without a result (an INSERT) reports the rows it changed, with no columns.
        assertEquals(3, new SqlRowsOutcome("shop", "ins", List.of(), List.of(), 3, false).rowCount());
        assertThrows(NullPointerException.class, () -> new SqlRowsOutcome(null, "s", TWO, List.of(), 0, false));
        assertThrows(NullPointerException.class, () -> new SqlRowsOutcome("d", null, TWO, List.of(), 0, false));
        assertThrows(NullPointerException.class, () -> new SqlRowsOutcome.Column(null, "t"));
        assertThrows(NullPointerException.class, () -> new SqlRowsOutcome.Column("n", null));
    }

    @Test
    void theOutcomesListsAreCopiesTheCallerCannotChange() {
        List<List<SqlValue>> rows = new ArrayList<>();
        List<SqlValue> row = new ArrayList<>(List.of(new SqlValue.Whole(1), new SqlValue.Null()));
        rows.add(row);
        SqlRowsOutcome o = outcome(rows, 1, false);
        row.set(0, new SqlValue.Whole(2));
        rows.clear();
        assertEquals(List.of(List.of(new SqlValue.Whole(1), new SqlValue.Null())), o.rows());
        assertThrows(UnsupportedOperationException.class, () -> o.rows().get(0).set(0, new SqlValue.Null()));
    }

    @Test
    void bytesAreCopiedComparedByContentAndShownAsBase64OrByLength() {
        byte[] raw = {1, 2, 3};
        SqlValue.Bytes b = new SqlValue.Bytes(raw);
        raw[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, b.value());
        b.value()[1] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, b.value());
        assertEquals("AQID", b.text());
        assertEquals(new SqlValue.Bytes(new byte[] {1, 2, 3}), b);
        assertEquals(new SqlValue.Bytes(new byte[] {1, 2, 3}).hashCode(), b.hashCode());
        assertNotEquals(new SqlValue.Bytes(new byte[] {1, 2}), b);
        assertNotEquals(b, new SqlValue.Text("AQID"));
        assertEquals("Bytes[3 bytes]", b.toString());
        assertThrows(NullPointerException.class, () -> new SqlValue.Bytes(null));
    }

    @Test
    void aTemporalIsOneOfTheFiveSqlDateAndTimeTypesWrittenInIso8601() {
        assertEquals("2026-12-01", new SqlValue.Temporal(LocalDate.of(2026, 12, 1)).text());
        assertEquals("10:15:30", new SqlValue.Temporal(LocalTime.of(10, 15, 30)).text());
        assertEquals("10:15Z", new SqlValue.Temporal(OffsetTime.of(10, 15, 0, 0, ZoneOffset.UTC)).text());
        assertEquals("2026-12-01T10:15", new SqlValue.Temporal(LocalDateTime.of(2026, 12, 1, 10, 15)).text());
        assertEquals("2026-12-01T10:15Z", new SqlValue.Temporal(OffsetDateTime.of(2026, 12, 1, 10, 15, 0, 0, ZoneOffset.UTC)).text());
        IllegalArgumentException instant = assertThrows(IllegalArgumentException.class, () -> new SqlValue.Temporal(Instant.EPOCH));
        assertTrue(instant.getMessage().contains("java.time.Instant"), instant.getMessage());
        assertThrows(NullPointerException.class, () -> new SqlValue.Temporal(null));
        assertNull(new SqlValue.Null().text());
    }
}
