package dev.postern.policy.outcome;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The rows a statement returned, read up to the database's row and byte caps: the column names and
 * type names, each row's values in column order, how many rows are here, and whether a cap cut the
 * result. A statement that returns no rows (an UPDATE) has no columns and reports the rows it
 * changed as {@code rowCount}. Credentials have already been masked by the executor.
 */
public record SqlRowsOutcome(
        String database, String statement, List<Column> columns, List<List<SqlValue>> rows, long rowCount,
        boolean truncated) implements Outcome {

    /** A result column: its name and the database's name for its type ({@code int8}, {@code text}...). */
    public record Column(String name, String type) {
        public Column {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
        }
    }

    public SqlRowsOutcome {
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(statement, "statement");
        columns = List.copyOf(Objects.requireNonNull(columns, "columns"));
        rows = Objects.requireNonNull(rows, "rows").stream().map(List::copyOf).toList();
        for (List<SqlValue> row : rows) {
            if (row.size() != columns.size()) {
                throw new IllegalArgumentException("a row has " + row.size() + " values for " + columns.size() + " columns");
            }
        }
        if (rowCount < 0 || (!columns.isEmpty() && rowCount != rows.size())) {
            throw new IllegalArgumentException("rowCount " + rowCount + " does not match " + rows.size() + " rows");
        }
    }

    /** The rows as one capped stream: each value's plain text (raw bytes for {@code bytea}), one line per row. */
    @Override
    public List<CapturedStream> streams() {
        return List.of(new CapturedStream("rows", renderedRows(), truncated));
    }

    @Override
    public List<byte[]> visibleParts() {
        List<byte[]> parts = new ArrayList<>();
        parts.add(database.getBytes(StandardCharsets.UTF_8));
        parts.add(statement.getBytes(StandardCharsets.UTF_8));
        for (Column c : columns) {
            parts.add(c.name().getBytes(StandardCharsets.UTF_8));
            parts.add(c.type().getBytes(StandardCharsets.UTF_8));
        }
        parts.add(renderedRows());
        return parts;
    }

    private byte[] renderedRows() {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (List<SqlValue> row : rows) {
            for (SqlValue v : row) {
                if (v instanceof SqlValue.Bytes b) {
                    all.writeBytes(b.value());
                } else if (v.text() != null) {
                    all.writeBytes(v.text().getBytes(StandardCharsets.UTF_8));
                }
            }
            all.write('\n');
        }
        return all.toByteArray();
    }

    @Override
    public String toString() {
        return "SqlRowsOutcome[database=" + database + ", statement=" + statement + ", columns=" + columns.size()
                + ", rows=" + rows.size() + ", rowCount=" + rowCount + ", truncated=" + truncated + ']';
    }
}
