package dev.postern.policy.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The statement lexer, table-driven: what counts as one statement, a placeholder, and the JDBC form. */
class SqlTextTest {

    static Stream<Arguments> accepted() {
        return Stream.of(
                arguments("SELECT 1", List.of(), "SELECT 1"),
                arguments("SELECT 1;", List.of(), "SELECT 1"),
                arguments("SELECT 1 ;  -- done\n", List.of(), "SELECT 1   -- done\n"),
                arguments("SELECT 1; /* trailing */", List.of(), "SELECT 1 /* trailing */"),
                arguments("SELECT * FROM t WHERE id = :id", List.of("id"), "SELECT * FROM t WHERE id = ?"),
                arguments("SELECT :a, :b, :a", List.of("a", "b", "a"), "SELECT ?, ?, ?"),
                arguments("SELECT :id::text", List.of("id"), "SELECT ?::text"),
                arguments("SELECT x::int FROM t", List.of(), "SELECT x::int FROM t"),
                arguments("SELECT ':no'", List.of(), "SELECT ':no'"),
                arguments("SELECT 'it''s ; :no'", List.of(), "SELECT 'it''s ; :no'"),
                arguments("SELECT '\\' || :x", List.of("x"), "SELECT '\\' || ?"),
                arguments("SELECT E'\\' ; :no' , :y", List.of("y"), "SELECT E'\\' ; :no' , ?"),
                arguments("SELECT e'a''b;' , :y", List.of("y"), "SELECT e'a''b;' , ?"),
                arguments("SELECT \"we;ird :col\" FROM t", List.of(), "SELECT \"we;ird :col\" FROM t"),
                arguments("SELECT \"a\"\"b;\" FROM t", List.of(), "SELECT \"a\"\"b;\" FROM t"),
                arguments("SELECT U&'d\\0061t;a', :z", List.of("z"), "SELECT U&'d\\0061t;a', ?"),
                arguments("SELECT $$ ; :no ' $$, :y", List.of("y"), "SELECT $$ ; :no ' $$, ?"),
                arguments("SELECT $fn$ $$ ; $fn$ || :y", List.of("y"), "SELECT $fn$ $$ ; $fn$ || ?"),
                arguments("SELECT a$b FROM t WHERE c = :c", List.of("c"), "SELECT a$b FROM t WHERE c = ?"),
                arguments("SELECT 1 -- ; :no\n, :y", List.of("y"), "SELECT 1 -- ; :no\n, ?"),
                arguments("SELECT /* a /* nested ; */ :no */ :y", List.of("y"), "SELECT /* a /* nested ; */ :no */ ?"),
                arguments("SELECT data ? 'key' FROM t WHERE id = :id", List.of("id"), "SELECT data ?? 'key' FROM t WHERE id = ?"),
                arguments("SELECT '?' , :q", List.of("q"), "SELECT '?' , ?"),
                arguments("SELECT f(a := 1)", List.of(), "SELECT f(a := 1)"),
                arguments("SELECT :under_score1", List.of("under_score1"), "SELECT ?"));
    }

    @ParameterizedTest
    @MethodSource("accepted")
    void oneStatementYieldsItsPlaceholdersInOrderAndItsJdbcForm(String sql, List<String> placeholders, String jdbc) {
        SqlText text = SqlText.parse(sql);
        assertEquals(placeholders, text.placeholders());
        assertEquals(jdbc, text.jdbcSql());
    }

    static Stream<Arguments> refused() {
        return Stream.of(
                arguments("SELECT 1; SELECT 2", "more than one statement"),
                arguments("SELECT 1;;", "more than one statement"),
                arguments("COMMIT; DROP TABLE t", "more than one statement"),
                arguments("SELECT 'a'; DROP TABLE t; --'", "more than one statement"),
                arguments("SELECT E'\\''; DROP TABLE t", "more than one statement"),
                arguments("SELECT $$x$$; DROP TABLE t", "more than one statement"),
                arguments("SELECT /* */ 1 /* ; */; DELETE FROM t", "more than one statement"),
                arguments("SELECT 'open", "unterminated ' quote"),
                arguments("SELECT E'open\\'", "unterminated ' quote"),
                arguments("SELECT \"open", "unterminated \" quote"),
                arguments("SELECT $a$ open $b$", "unterminated dollar quote $a$"),
                arguments("SELECT /* /* */ still open", "unterminated comment"),
                arguments("SELECT * FROM t WHERE id = $1", "positional parameter"),
                arguments("", "no statement"),
                arguments("  ; ", "no statement"),
                arguments("-- only a comment", "no statement"),
                arguments("SELECT 1\0", "NUL"));
    }

    @ParameterizedTest
    @MethodSource("refused")
    void whatIsNotExactlyOneStatementIsRefused(String sql, String why) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SqlText.parse(sql));
        assertTrue(e.getMessage().contains(why), () -> e.getMessage() + " should say " + why);
    }

    @Test
    void statementSpecRefusesPlaceholdersWithoutParamsAndParamsWithoutPlaceholders() {
        ParamSpec integer = new ParamSpec.IntegerParam(1, 10);
        IllegalArgumentException undeclared = assertThrows(IllegalArgumentException.class,
                () -> new SqlStatementSpec("s", "SELECT :a, :b", Map.of("a", integer)));
        assertTrue(undeclared.getMessage().contains("placeholders without a param [b]"), undeclared::getMessage);
        IllegalArgumentException unused = assertThrows(IllegalArgumentException.class,
                () -> new SqlStatementSpec("s", "SELECT ':a'", Map.of("a", integer)));
        assertTrue(unused.getMessage().contains("params without a placeholder [a]"), unused::getMessage);
        IllegalArgumentException stacked = assertThrows(IllegalArgumentException.class,
                () -> new SqlStatementSpec("s", "SELECT 1; DROP TABLE t", Map.of()));
        assertTrue(stacked.getMessage().startsWith("statement s: "), stacked::getMessage);
        assertEquals(List.of("a", "a"), new SqlStatementSpec("s", "SELECT :a + :a", Map.of("a", integer)).text().placeholders());
    }

    @Test
    void tlsCanBeOffOnlyForLoopbackHosts() {
        assertThrows(IllegalArgumentException.class, () -> database("db.internal", SqlDatabase.Tls.disabled()));
        assertThrows(IllegalArgumentException.class, () -> database("10.0.0.5", SqlDatabase.Tls.disabled()));
        for (String loopback : List.of("localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]")) {
            assertEquals(loopback, database(loopback, SqlDatabase.Tls.disabled()).host());
        }
        assertEquals("db.internal", database("db.internal", SqlDatabase.Tls.verifyFull()).host());
        assertThrows(IllegalArgumentException.class, () -> new SqlDatabase.Tls(SqlDatabase.TlsMode.VERIFY_FULL,
                Optional.of(java.nio.file.Path.of("relative/ca.pem"))));
    }

    @Test
    void aDatabaseHostIsReadAsAnHttpTargetsHostIs() {
        for (String odd : List.of("127.000.0.1", "2130706433", "0x7f.0.0.1", "127.1", "a_b.example", "[fe80::1%25eth0]", "bücher.example")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> database(odd, SqlDatabase.Tls.verifyFull()), odd);
            assertTrue(e.getMessage().startsWith("database db: host \"" + odd + "\": "), e.getMessage());
        }
        for (String fine : List.of("db.internal", "DB.Internal.", "10.0.0.5", "::1", "[::1]", "2001:db8::5", "xn--bcher-kva.example")) {
            assertEquals(fine, database(fine, SqlDatabase.Tls.verifyFull()).host(), fine);
        }
    }

    @Test
    void sshCommandsTakeNoNumberOrBooleanParams() {
        assertThrows(IllegalArgumentException.class, () -> new SshCommandSpec("c", List.of("echo", "{b}"),
                Map.of("b", new ParamSpec.BooleanParam())));
    }

    private static SqlDatabase database(String host, SqlDatabase.Tls tls) {
        return new SqlDatabase("db", host, 5432, "shop", "agent", new CredentialRef("pw"), tls, true,
                java.time.Duration.ofSeconds(5), 100, 65536, List.of());
    }
}
