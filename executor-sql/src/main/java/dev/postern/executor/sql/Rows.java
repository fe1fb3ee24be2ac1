package dev.postern.executor.sql;

import dev.postern.policy.outcome.SqlRowsOutcome;
import dev.postern.policy.outcome.SqlValue;
import dev.postern.policy.port.SecretMask;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TypeInfo;
import org.postgresql.jdbc.PgResultSet;

/**
 * Reads a result set row by row into typed values, stopping at the row cap or before the row that
 * would pass the byte cap; what the driver has not fetched is never read. A value's size is its
 * plain text in UTF-8, plus what JSON escaping adds to it (a byte for a quote, backslash, newline or
 * tab, five for another control character: U+0001 goes out as six), plus {@link #PER_VALUE}
 * bytes for the quotes and separators a rendering adds, so the count is never below what the agent
 * receives in {@code rows}. Masks secrets in every text and byte value.
 */
final class Rows {
    /** Bytes counted on top of each value's text: quotes, a comma, escaping slack. */
    static final int PER_VALUE = 4;

    private Rows() {
    }

    /** What was read: columns, rows, and whether a cap cut the result. */
    record Read(List<SqlRowsOutcome.Column> columns, List<List<SqlValue>> rows, boolean truncated) {
    }

    static Read read(ResultSet rs, int maxRows, long maxBytes, SecretMask mask) throws SQLException {
        ResultSetMetaData meta = rs.getMetaData();
        int n = meta.getColumnCount();
        // The type's own name from its OID: ResultSetMetaData.getColumnTypeName would send a catalog
        // query per result to tell serial from integer columns.
        PgResultSet pgRows = rs.unwrap(PgResultSet.class);
        TypeInfo typeInfo = rs.getStatement().getConnection().unwrap(BaseConnection.class).getTypeInfo();
        List<SqlRowsOutcome.Column> columns = new ArrayList<>(n);
        String[] types = new String[n];
        long bytes = 0;
        for (int c = 1; c <= n; c++) {
            types[c - 1] = typeInfo.getPGType(pgRows.getColumnOID(c));
            SqlRowsOutcome.Column column = new SqlRowsOutcome.Column(mask.mask(meta.getColumnLabel(c)), types[c - 1]);
            columns.add(column);
            bytes += utf8(column.name()) + utf8(column.type()) + PER_VALUE;
        }
        List<List<SqlValue>> rows = new ArrayList<>();
        boolean truncated = false;
        while (rs.next()) {
            if (rows.size() >= maxRows) {
                truncated = true;
                break;
            }
            List<SqlValue> row = new ArrayList<>(n);
            long rowBytes = 0;
            for (int c = 1; c <= n; c++) {
                SqlValue v = value(rs, c, types[c - 1], mask);
                row.add(v);
                String text = v.text();
                rowBytes += (text == null ? 4 : utf8(text) + escapes(text)) + PER_VALUE;
            }
            if (bytes + rowBytes > maxBytes) {
                truncated = true;
                break;
            }
            bytes += rowBytes;
            rows.add(row);
        }
        return new Read(columns, rows, truncated);
    }

    private static SqlValue value(ResultSet rs, int c, String type, SecretMask mask) throws SQLException {
        SqlValue v;
        switch (type) {
            case "int2", "int4", "int8", "oid" -> {
                long l = rs.getLong(c);
                v = rs.wasNull() ? null : new SqlValue.Whole(l);
            }
            case "numeric" -> {
                String s = rs.getString(c);
                v = s == null ? null : decimalOrText(s);
            }
            case "float4", "float8" -> {
                double d = rs.getDouble(c);
                v = rs.wasNull() ? null : new SqlValue.Float(d);
            }
            case "bool" -> {
                boolean b = rs.getBoolean(c);
                v = rs.wasNull() ? null : new SqlValue.Bool(b);
            }
            case "bytea" -> {
                byte[] b = rs.getBytes(c);
                v = b == null ? null : new SqlValue.Bytes(mask.mask(b, false));
            }
            case "date" -> v = temporal(rs, c, LocalDate.class);
            case "time" -> v = temporal(rs, c, LocalTime.class);
            case "timetz" -> v = temporal(rs, c, OffsetTime.class);
            case "timestamp" -> v = temporal(rs, c, LocalDateTime.class);
            case "timestamptz" -> v = temporal(rs, c, OffsetDateTime.class);
            default -> {
                String s = rs.getString(c);
                v = s == null ? null : new SqlValue.Text(mask.mask(s));
            }
        }
        return v == null ? new SqlValue.Null() : v;
    }

    /** numeric as an exact decimal; its NaN and infinities, which no decimal holds, as text. */
    private static SqlValue decimalOrText(String s) {
        try {
            return new SqlValue.Decimal(new BigDecimal(s));
        } catch (NumberFormatException e) {
            return new SqlValue.Text(s);
        }
    }

    /** A date/time, or the server's text for values java.time cannot hold ({@code infinity}). */
    private static <T extends java.time.temporal.Temporal> SqlValue temporal(ResultSet rs, int c, Class<T> type)
            throws SQLException {
        String text = rs.getString(c);
        if (text == null) {
            return null;
        }
        if (text.endsWith("infinity")) {
            return new SqlValue.Text(text);
        }
        return new SqlValue.Temporal(rs.getObject(c, type));
    }

    /** The bytes JSON escaping adds to {@code s} as Jackson writes it: one for {@code " \\ \b \f \n \r \t}, five for another control. */
    static long escapes(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
                n += 1;
            } else if (c < 0x20) {
                n += 5;
            }
        }
        return n;
    }

    private static long utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
