package dev.postern.executor.sql;

import dev.postern.policy.action.Argument;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.postgresql.util.PGobject;

/**
 * How a statement's values are typed when bound. First as their params declare ({@code bigint},
 * {@code numeric}, {@code varchar}, {@code boolean}: what every statement got before, so one that
 * ran then runs the same now); if the server cannot resolve the statement with those types (a
 * function or operator that takes {@code integer}, {@code timestamptz}, an enum…), each value is
 * typed by the server from its position instead — but an integer, number or boolean param only
 * where that type is one its value can be (a number or text type for a number, {@code boolean} or
 * text for a boolean), and then bound with exactly that type, so the server cannot reinterpret it;
 * a string param takes whatever type its position has and the server's input function of that type
 * parses it (a value it cannot parse fails the call with the server's SQLSTATE). Either way a value
 * is a bound parameter, never SQL text. Which way a statement goes is found once per executor by
 * describe-only requests (Parse, Describe, Sync: nothing runs) and remembered; a call that then
 * fails on a type is forgotten, so the next call asks again. Thread-safe.
 *
 * <p>Limits: a statement is typed as a whole: when the declared types do not fit, a param whose
 * position gives no type of its own ({@code SELECT :n}) is typed {@code text} by the server, like the
 * rest of the statement's params, and comes back as text (a cast, {@code :n::bigint}, keeps it a number).
 */
final class ParamTypes {
    /** SQLSTATEs of a statement the server cannot resolve with the types given to its params. */
    private static final Set<String> TYPE_STATES = Set.of(
            "42883", // undefined_function: no function or operator takes these types
            "42804", // datatype_mismatch
            "42846", // cannot_coerce
            "42725", // ambiguous_function
            "42P08", // ambiguous_parameter
            "42P18"); // indeterminate_datatype
    /** Server types (pgjdbc's names) an integer param's value can be; all built in, so naming one asks the server nothing. */
    private static final Set<String> FOR_INTEGER = Set.of("int2", "int4", "int8", "numeric", "float4", "float8", "text", "varchar", "bpchar");
    private static final Set<String> FOR_NUMBER = FOR_INTEGER;
    private static final Set<String> FOR_BOOLEAN = Set.of("bool", "text", "varchar", "bpchar");
    private static final Set<String> WHOLE_TYPES = Set.of("int2", "int4", "int8");
    /** More typings than any configuration has statements: the map is emptied rather than grown past this. */
    private static final int MAX_REMEMBERED = 4096;

    /** The kind of param behind one placeholder position. */
    enum Kind {
        INTEGER, NUMBER, STRING, BOOLEAN;

        static Kind of(ParamSpec spec) {
            if (spec instanceof ParamSpec.IntegerParam) {
                return INTEGER;
            }
            if (spec instanceof ParamSpec.NumberParam) {
                return NUMBER;
            }
            if (spec instanceof ParamSpec.BooleanParam) {
                return BOOLEAN;
            }
            return STRING;
        }
    }

    /** How one statement's values are bound: as declared, or with the type the server gave each position. */
    sealed interface Typing {
        /** {@code bigint}, {@code numeric}, {@code varchar}, {@code boolean}, as the params declare. */
        record Declared() implements Typing {
        }

        /** Per position, the server's type for it (pgjdbc's name); a string's value is bound untyped and the server types it the same way. */
        record FromServer(List<String> types) implements Typing {
            public FromServer {
                types = List.copyOf(types);
            }
        }
    }

    /**
     * What describing a statement found: the typing to bind with, and, when no typing fits, the
     * server's refusal of the declared types ({@code refused}) and why the server's own types were
     * not taken ({@code misfit}: a sentence, or empty when the server refused those too).
     */
    record Found(Typing typing, Optional<SQLException> refused, Optional<String> misfit) {
        Found {
            Objects.requireNonNull(typing, "typing");
            Objects.requireNonNull(refused, "refused");
            Objects.requireNonNull(misfit, "misfit");
        }
    }

    /** Where a typing is remembered: the server and login (the schema and search path it sees), the SQL, the kinds per position. */
    private record Key(String host, int port, String database, String user, String sql, List<Kind> kinds) {
        Key(SqlDatabase db, String sql, List<Kind> kinds) {
            this(db.host(), db.port(), db.database(), db.user(), sql, List.copyOf(kinds));
        }
    }

    private final Map<Key, Typing> remembered = new ConcurrentHashMap<>();

    /** The kinds of a statement's placeholder positions, in order. */
    static List<Kind> kinds(SqlStatementSpec statement) {
        List<Kind> out = new ArrayList<>();
        for (String placeholder : statement.text().placeholders()) {
            out.add(Kind.of(statement.params().get(placeholder)));
        }
        return out;
    }

    /** The typing found for {@code sql} on {@code db} before, if any. */
    Optional<Typing> known(SqlDatabase db, String sql, List<Kind> kinds) {
        return Optional.ofNullable(remembered.get(new Key(db, sql, kinds)));
    }

    /**
     * Finds the typing for {@code sql} by describe-only requests on {@code conn}, which must not be
     * inside a transaction block (a refused Parse would abort it), and remembers it. {@code describing}
     * is told of each request while it is at the server, so a stop can cancel it. A failure that is not
     * about types (a broken connection, a missing table) is thrown and nothing is remembered.
     */
    Typing find(Connection conn, SqlDatabase db, String sql, List<Kind> kinds, Consumer<PreparedStatement> describing)
            throws SQLException {
        Typing found = describe(conn, sql, kinds, describing).typing();
        if (remembered.size() >= MAX_REMEMBERED) {
            remembered.clear();
        }
        remembered.put(new Key(db, sql, kinds), found);
        return found;
    }

    /** Forgets what was found for {@code sql}, after a call of it failed with {@code e}, if that failure was about types. */
    void forgetIfTypeFailure(SQLException e, SqlDatabase db, String sql, List<Kind> kinds) {
        if (isTypeFailure(e)) {
            remembered.remove(new Key(db, sql, kinds));
        }
    }

    static boolean isTypeFailure(SQLException e) {
        return e.getSQLState() != null && TYPE_STATES.contains(e.getSQLState());
    }

    /**
     * Asks the server to describe {@code sql} with the declared types and, if it cannot resolve them,
     * with every param untyped; Parse, Describe and Sync only, never Bind or Execute. A connection
     * failure is thrown.
     */
    static Found describe(Connection conn, String sql, List<Kind> kinds, Consumer<PreparedStatement> describing) throws SQLException {
        SQLException declaredRefused;
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            bind(ps, samples(kinds), new Typing.Declared());
            describing.accept(ps);
            ps.getParameterMetaData();
            return new Found(new Typing.Declared(), Optional.empty(), Optional.empty());
        } catch (SQLException e) {
            if (!isTypeFailure(e)) {
                throw e;
            }
            declaredRefused = e;
        } finally {
            describing.accept(null);
        }
        List<String> types = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            for (int i = 1; i <= kinds.size(); i++) {
                ps.setObject(i, "", Types.OTHER); // untyped: the server types the position
            }
            describing.accept(ps);
            ParameterMetaData md = ps.getParameterMetaData();
            for (int i = 1; i <= kinds.size(); i++) {
                Kind kind = kinds.get(i - 1);
                if (kind == Kind.STRING) {
                    types.add("");
                    continue; // any type: its input function parses the string (naming a user type could cost a lookup)
                }
                String type = md.getParameterTypeName(i);
                if (!fits(kind, type)) {
                    return new Found(new Typing.Declared(), Optional.of(declaredRefused), Optional.of("the server types placeholder "
                            + i + " as " + type + ", which " + article(kind) + " param's value cannot be"));
                }
                types.add(type);
            }
        } catch (SQLException e) {
            if (!isTypeFailure(e)) {
                throw e;
            }
            return new Found(new Typing.Declared(), Optional.of(declaredRefused), Optional.empty());
        } finally {
            describing.accept(null);
        }
        return new Found(new Typing.FromServer(types), Optional.empty(), Optional.empty());
    }

    private static boolean fits(Kind kind, String type) {
        switch (kind) {
            case INTEGER:
                return FOR_INTEGER.contains(type);
            case NUMBER:
                return FOR_NUMBER.contains(type);
            case BOOLEAN:
                return FOR_BOOLEAN.contains(type);
            default:
                return true;
        }
    }

    private static String article(Kind kind) {
        return kind == Kind.INTEGER ? "an integer" : kind == Kind.NUMBER ? "a number" : "a boolean";
    }

    /** One sample value per position, of the kind its param binds (only its type is sent, with a describe-only request). */
    static List<Argument> samples(List<Kind> kinds) {
        List<Argument> out = new ArrayList<>();
        for (Kind k : kinds) {
            switch (k) {
                case INTEGER:
                    out.add(new Argument.Whole(0));
                    break;
                case NUMBER:
                    out.add(new Argument.Decimal(BigDecimal.ZERO));
                    break;
                case BOOLEAN:
                    out.add(new Argument.Bool(false));
                    break;
                default:
                    out.add(new Argument.Text(""));
                    break;
            }
        }
        return out;
    }

    /** Binds {@code values} in placeholder order as {@code typing} says; each is a parameter, never spliced into the SQL. */
    static void bind(PreparedStatement ps, List<Argument> values, Typing typing) throws SQLException {
        if (typing instanceof Typing.FromServer server) {
            int i = 1;
            for (Argument v : values) {
                if (v instanceof Argument.Text t) {
                    ps.setObject(i, t.value(), Types.OTHER); // untyped, in text form: the server types it from its position
                } else {
                    String type = server.types().get(i - 1);
                    PGobject typed = new PGobject();
                    typed.setType(type);
                    typed.setValue(text(v, WHOLE_TYPES.contains(type)));
                    ps.setObject(i, typed);
                }
                i++;
            }
            return;
        }
        int i = 1;
        for (Argument v : values) {
            if (v instanceof Argument.Text t) {
                ps.setString(i, t.value());
            } else if (v instanceof Argument.Whole w) {
                ps.setLong(i, w.value());
            } else if (v instanceof Argument.Decimal d) {
                ps.setBigDecimal(i, d.value());
            } else if (v instanceof Argument.Bool b) {
                ps.setBoolean(i, b.value());
            } else {
                ps.setNull(i, Types.NULL);
            }
            i++;
        }
    }

    /**
     * A value's exact text: digits for a whole number; a decimal's plain digits, without a zero
     * fraction when it goes where a whole number is wanted ({@code 3.0} to an {@code integer} is
     * {@code 3}; {@code 2.5} stays {@code 2.5} and the server refuses it rather than rounding).
     */
    private static String text(Argument v, boolean whole) {
        if (v instanceof Argument.Whole w) {
            return Long.toString(w.value());
        }
        if (v instanceof Argument.Decimal d) {
            BigDecimal stripped = d.value().stripTrailingZeros();
            return whole && stripped.scale() <= 0 ? stripped.toBigInteger().toString() : d.value().toPlainString();
        }
        if (v instanceof Argument.Bool b) {
            return Boolean.toString(b.value());
        }
        return ((Argument.Text) v).value();
    }
}
