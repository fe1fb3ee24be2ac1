package dev.postern.executor.sql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.model.SqlDatabase;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pool's release of finished calls' connections against a real PostgreSQL: a connection is handed
 * out again only after the server ended its transaction, whether a release thread or the call that
 * claimed it sent the ROLLBACK; one whose ROLLBACK fails or goes unanswered is closed; close() leaves
 * no backend behind, releases pending or not.
 */
class ConnectionPoolTest {
    private static final String PASSWORD = "pool-password-51c0";
    private static TestDatabase db;
    private HeldReleases gate;
    private ConnectionPool pool;
    private final List<Connection> opened = new ArrayList<>();

    @BeforeAll
    static void startDatabase() throws SQLException {
        db = TestDatabase.start();
        db.setPassword(PASSWORD);
    }

    @AfterAll
    static void stopDatabase() throws SQLException {
        if (db != null) {
            db.close();
        }
    }

    @BeforeEach
    void newPool() {
        gate = new HeldReleases();
        pool = new ConnectionPool(gate);
    }

    @AfterEach
    void closePool() {
        pool.close();
        opened.forEach(ConnectionPool::closeQuietly);
    }

    private static SqlDatabase shop(Duration timeout) {
        return db.database("shop", timeout, 10, 4096, "pw", List.of());
    }

    /** A connection of the executor's role inside an open read-only transaction, as a finished read-only call leaves it. */
    private Connection inReadOnlyTransaction() throws SQLException {
        Connection c = db.connectAsRole(PASSWORD, "");
        opened.add(c);
        c.setAutoCommit(false);
        c.setReadOnly(true);
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT note FROM t WHERE id = 1")) {
            assertTrue(rs.next());
        }
        return c;
    }

    private static long pid(Connection c) throws SQLException {
        return c.unwrap(org.postgresql.PGConnection.class).getBackendPID();
    }

    private static String state(long pid) throws SQLException {
        long idleInTransaction = db.count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid + " AND state = 'idle in transaction'");
        long idle = db.count("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid + " AND state = 'idle'");
        return idleInTransaction == 1 ? "idle in transaction" : idle == 1 ? "idle" : "other";
    }

    private static long deadlineIn(Duration d) {
        return System.nanoTime() + d.toNanos();
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "kill -" + signal + " " + pid + " failed");
    }

    private static void awaitState(long pid, String state) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!state(pid).equals(state) && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(state, state(pid));
    }

    private static void awaitClosed(Connection c) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!c.isClosed() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertTrue(c.isClosed(), "the connection was not closed");
    }

    @Test
    void aReleaseThreadEndsTheTransactionBeforeTheConnectionIsHandedOutAgain() throws Exception {
        SqlDatabase shop = shop(Duration.ofSeconds(5));
        Connection c = inReadOnlyTransaction();
        long pid = pid(c);

        pool.release(shop, c, ConnectionPool.Cleanup.ROLLBACK);

        assertEquals("idle in transaction", state(pid), "the transaction is still open while its release is held");
        gate.letGo();
        awaitState(pid, "idle");
        Optional<Connection> again = pool.take(shop, deadlineIn(Duration.ofSeconds(5)), () -> false);
        assertTrue(again.isPresent(), "the released connection is idle again");
        assertSame(c, again.get());
    }

    @Test
    void aCallThatClaimsAReleaseNotYetBegunEndsTheTransactionItselfAndHasTheConnectionAlone() throws Exception {
        SqlDatabase shop = shop(Duration.ofSeconds(5));
        Connection c = inReadOnlyTransaction();
        long pid = pid(c);
        pool.release(shop, c, ConnectionPool.Cleanup.ROLLBACK);

        Optional<Connection> taken = pool.take(shop, deadlineIn(Duration.ofSeconds(5)), () -> false);

        assertTrue(taken.isPresent());
        assertSame(c, taken.get());
        assertEquals("idle", state(pid), "the ROLLBACK ran before the connection was handed out");
        gate.letGo(); // the release thread finds the cleanup done and leaves the connection alone
        Thread.sleep(100);
        assertFalse(c.isClosed());
        assertEquals(Optional.empty(), pool.take(shop, deadlineIn(Duration.ofMillis(200)), () -> false),
                "the connection is not pooled a second time while its taker has it");
    }

    @Test
    void aConnectionWhoseRollbackFailsOnTheReleaseThreadIsClosedNotPooled() throws Exception {
        SqlDatabase shop = shop(Duration.ofSeconds(5));
        Connection c = inReadOnlyTransaction();
        long pid = pid(c);
        pool.release(shop, c, ConnectionPool.Cleanup.ROLLBACK);
        db.execute("SELECT pg_terminate_backend(" + pid + ")");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid, 0, Duration.ofSeconds(3)));

        gate.letGo();

        awaitClosed(c);
        assertEquals(Optional.empty(), pool.take(shop, deadlineIn(Duration.ofSeconds(5)), () -> false),
                "a connection whose ROLLBACK failed must not be handed out");
    }

    @Test
    void aConnectionWhoseRollbackFailsInTheCallThatClaimedItIsClosedNotHandedOut() throws Exception {
        SqlDatabase shop = shop(Duration.ofSeconds(5));
        Connection c = inReadOnlyTransaction();
        long pid = pid(c);
        pool.release(shop, c, ConnectionPool.Cleanup.ROLLBACK);
        db.execute("SELECT pg_terminate_backend(" + pid + ")");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid, 0, Duration.ofSeconds(3)));

        assertEquals(Optional.empty(), pool.take(shop, deadlineIn(Duration.ofSeconds(5)), () -> false),
                "a connection whose ROLLBACK failed must not be handed out");
        assertTrue(c.isClosed(), "and it is closed");
    }

    @Test
    void aRollbackTheServerDoesNotAnswerWithinTheLimitClosesTheConnection() throws Exception {
        SqlDatabase shop = shop(Duration.ofMillis(500)); // the release limit is min(timeout, 1 s)
        Connection c = inReadOnlyTransaction();
        long pid = pid(c);
        pool.release(shop, c, ConnectionPool.Cleanup.ROLLBACK);
        signal("STOP", pid);
        try {
            long t0 = System.nanoTime();
            gate.letGo();

            Optional<Connection> taken = pool.take(shop, deadlineIn(Duration.ofSeconds(10)), () -> false);

            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(Optional.empty(), taken, "a connection whose ROLLBACK went unanswered must not be handed out");
            assertTrue(waitedMs < 5000, "the release gave up after " + waitedMs + " ms, not at its limit of 500 ms");
            assertTrue(c.isClosed(), "the unanswered connection is closed");
        } finally {
            signal("CONT", pid);
        }
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid, 0, Duration.ofSeconds(5)),
                "the backend ends once it sees its client gone");
    }

    @Test
    void closeEndsReleasesNotYetBegunAndLeavesNoBackend() throws Exception {
        SqlDatabase shop = shop(Duration.ofSeconds(5));
        Connection first = inReadOnlyTransaction();
        Connection second = inReadOnlyTransaction();
        pool.release(shop, first, ConnectionPool.Cleanup.ROLLBACK);
        pool.release(shop, second, ConnectionPool.Cleanup.ROLLBACK);
        assertEquals(2, gate.held());
        assertEquals(2, db.count("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent' AND state = 'idle in transaction'"));

        long t0 = System.nanoTime();
        pool.close();
        long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

        assertTrue(closeMs < 3000, "close took " + closeMs + " ms");
        assertTrue(first.isClosed() && second.isClosed(), "a release that never began has its connection closed");
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0, Duration.ofSeconds(5)),
                "no backend is left behind");
        gate.letGo(); // the releases held past close find them claimed and do nothing more
        assertEquals(Optional.empty(), pool.take(shop, deadlineIn(Duration.ofSeconds(1)), () -> false));
    }

    @Test
    void closeAbortsACleanupTheServerDoesNotAnswer() throws Exception {
        SqlDatabase shop = shop(Duration.ofSeconds(5)); // the release limit is 1 s
        Connection c = inReadOnlyTransaction();
        long pid = pid(c);
        pool.release(shop, c, ConnectionPool.Cleanup.ROLLBACK);
        signal("STOP", pid);
        try {
            gate.letGo();
            Thread.sleep(200); // the release thread sends its ROLLBACK and waits for the stopped backend

            long t0 = System.nanoTime();
            pool.close();
            long closeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);

            assertTrue(closeMs < 3000, "close took " + closeMs + " ms");
            assertTrue(c.isClosed(), "the unanswered connection is aborted");
        } finally {
            signal("CONT", pid);
        }
        assertEquals(0, db.awaitCount("SELECT count(*) FROM pg_stat_activity WHERE usename = 'agent'", 0, Duration.ofSeconds(5)),
                "no backend is left behind");
    }

    @Test
    void atMostFourConnectionsPerDatabaseAreKeptIdle() throws Exception {
        SqlDatabase shop = shop(Duration.ofSeconds(5));
        gate.passThrough();
        List<Connection> six = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            six.add(inReadOnlyTransaction());
        }
        six.forEach(c -> pool.release(shop, c, ConnectionPool.Cleanup.ROLLBACK));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (closedOf(six) < 6 - ConnectionPool.MAX_IDLE_PER_DATABASE && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(6 - ConnectionPool.MAX_IDLE_PER_DATABASE, closedOf(six), "the releases past the cap close their connections");

        List<Connection> taken = new ArrayList<>();
        for (Optional<Connection> c = pool.take(shop, deadlineIn(Duration.ofSeconds(5)), () -> false); c.isPresent();
                c = pool.take(shop, deadlineIn(Duration.ofSeconds(5)), () -> false)) {
            taken.add(c.get());
        }

        assertEquals(ConnectionPool.MAX_IDLE_PER_DATABASE, taken.size(), "the idle connections handed out again");
        for (Connection c : taken) {
            assertFalse(c.isClosed());
            assertEquals("idle", state(pid(c)));
        }
    }

    private static long closedOf(List<Connection> connections) throws SQLException {
        long n = 0;
        for (Connection c : connections) {
            n += c.isClosed() ? 1 : 0;
        }
        return n;
    }
}
