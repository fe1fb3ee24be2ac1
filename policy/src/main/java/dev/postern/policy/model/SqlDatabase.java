package dev.postern.policy.model;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One PostgreSQL database the agent may query: where it is, who to log in as (the password is a
 * credential name), how TLS is verified, whether a loopback or private address may be dialed, the
 * statements allowed there, and the limits the executor enforces (one timeout for the statement,
 * its locks and an idle transaction; rows; bytes of rendered rows), and how many calls it takes per
 * period (applied outside the kernel).
 */
public record SqlDatabase(
        String name,
        String host,
        int port,
        String database,
        String user,
        CredentialRef password,
        Tls tls,
        boolean allowPrivateAddresses,
        Duration timeout,
        int maxRows,
        long maxResponseBytes,
        List<SqlStatementSpec> statements,
        Optional<RateLimit> rateLimit) implements Allowance {

    private static final Pattern IDENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_.$-]{0,62}");

    /** How the connection is protected: verified TLS, or none (loopback only). */
    public enum TlsMode {
        /** TLS with the server's chain and host name verified ({@code sslmode=verify-full}). */
        VERIFY_FULL,
        /** No TLS; allowed only for a database on a loopback address. */
        DISABLE
    }

    /**
     * TLS settings: the mode and, for {@link TlsMode#VERIFY_FULL}, an optional CA file (absolute;
     * without one the driver's default root file applies).
     */
    public record Tls(TlsMode mode, Optional<Path> caFile) {
        public Tls {
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(caFile, "caFile");
            caFile.ifPresent(f -> {
                if (!f.isAbsolute()) {
                    throw new IllegalArgumentException("tls.caFile must be an absolute path, got " + f);
                }
            });
            if (mode == TlsMode.DISABLE && caFile.isPresent()) {
                throw new IllegalArgumentException("tls.caFile makes no sense with TLS disabled");
            }
        }

        public static Tls verifyFull() {
            return new Tls(TlsMode.VERIFY_FULL, Optional.empty());
        }

        public static Tls disabled() {
            return new Tls(TlsMode.DISABLE, Optional.empty());
        }
    }

    /** A database without a rate limit. */
    public SqlDatabase(String name, String host, int port, String database, String user, CredentialRef password,
                       Tls tls, boolean allowPrivateAddresses, Duration timeout, int maxRows, long maxResponseBytes,
                       List<SqlStatementSpec> statements) {
        this(name, host, port, database, user, password, tls, allowPrivateAddresses, timeout, maxRows,
                maxResponseBytes, statements, Optional.empty());
    }

    public SqlDatabase {
        Names.require("database name", name);
        Objects.requireNonNull(host, "host");
        if (host.isBlank() || host.chars().anyMatch(c -> c <= ' ' || c == '/' || c == '?' || c == '&' || c == '#' || c == ',')) {
            throw new IllegalArgumentException("database " + name + ": host must be a host name or an address literal");
        }
        try {
            // Read as an HTTP target's host is (HostSyntax): 127.000.0.1, 2130706433 or 0x7f.1 are refused, not resolved.
            HostSyntax.canonical(host.indexOf(':') >= 0 && !host.startsWith("[") ? '[' + host + ']' : host);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("database " + name + ": host \"" + host + "\": " + e.getMessage());
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("database " + name + ": port must be 1..65535, got " + port);
        }
        if (database == null || !IDENT.matcher(database).matches()) {
            throw new IllegalArgumentException("database " + name + ": database must match " + IDENT.pattern());
        }
        if (user == null || !IDENT.matcher(user).matches()) {
            throw new IllegalArgumentException("database " + name + ": user must match " + IDENT.pattern());
        }
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(tls, "tls");
        if (tls.mode() == TlsMode.DISABLE && !isLoopbackName(host)) {
            throw new IllegalArgumentException("database " + name + ": TLS may be disabled only for a loopback host"
                    + " (localhost, 127.0.0.0/8, ::1), not " + host);
        }
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero() || timeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("database " + name + ": timeout must be positive and under 24 days");
        }
        if (maxRows < 1) {
            throw new IllegalArgumentException("database " + name + ": maxRows must be positive");
        }
        if (maxResponseBytes < 1) {
            throw new IllegalArgumentException("database " + name + ": maxResponseBytes must be positive");
        }
        statements = List.copyOf(Objects.requireNonNull(statements, "statements"));
        Set<String> seen = new HashSet<>();
        for (SqlStatementSpec s : statements) {
            if (!seen.add(s.name())) {
                throw new IllegalArgumentException("database " + name + ": statement \"" + s.name() + "\" is defined twice");
            }
        }
        Objects.requireNonNull(rateLimit, "rateLimit");
    }

    @Override
    public String noun() {
        return "sql database";
    }

    @Override
    public List<ToolClaim> toolClaims() {
        return statements.stream().flatMap(s -> s.tool().stream()
                .map(t -> new ToolClaim(t.name(), noun() + " " + name + ", statement " + s.name()))).toList();
    }

    public Optional<SqlStatementSpec> statement(String statementName) {
        return statements.stream().filter(s -> s.name().equals(statementName)).findFirst();
    }

    /** Whether {@code host} names loopback without a resolver: localhost, 127.0.0.0/8 or ::1. */
    public static boolean isLoopbackName(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return h.equals("localhost") || h.equals("::1") || h.equals("0:0:0:0:0:0:0:1")
                || h.matches("127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}");
    }
}
