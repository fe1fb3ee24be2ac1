package dev.postern.policy.model;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Everything an operator allows: HTTP targets, SSH hosts and SQL databases, names unique within
 * each. What is not here is denied; an empty policy denies everything.
 */
public record Policy(List<HttpTarget> httpTargets, List<SshHost> sshHosts, List<SqlDatabase> sqlDatabases) {

    public Policy {
        httpTargets = List.copyOf(Objects.requireNonNull(httpTargets, "httpTargets"));
        sshHosts = List.copyOf(Objects.requireNonNull(sshHosts, "sshHosts"));
        sqlDatabases = List.copyOf(Objects.requireNonNull(sqlDatabases, "sqlDatabases"));
        Set<String> seen = new HashSet<>();
        for (HttpTarget t : httpTargets) {
            if (!seen.add(t.name())) {
                throw new IllegalArgumentException("http target \"" + t.name() + "\" is defined twice");
            }
        }
        seen.clear();
        for (SshHost h : sshHosts) {
            if (!seen.add(h.name())) {
                throw new IllegalArgumentException("ssh host \"" + h.name() + "\" is defined twice");
            }
        }
        seen.clear();
        for (SqlDatabase d : sqlDatabases) {
            if (!seen.add(d.name())) {
                throw new IllegalArgumentException("sql database \"" + d.name() + "\" is defined twice");
            }
        }
    }

    /** A policy without SQL databases. */
    public Policy(List<HttpTarget> httpTargets, List<SshHost> sshHosts) {
        this(httpTargets, sshHosts, List.of());
    }

    public static Policy denyAll() {
        return new Policy(List.of(), List.of(), List.of());
    }

    public Optional<SshHost> sshHost(String name) {
        return sshHosts.stream().filter(h -> h.name().equals(name)).findFirst();
    }

    public Optional<SqlDatabase> sqlDatabase(String name) {
        return sqlDatabases.stream().filter(d -> d.name().equals(name)).findFirst();
    }
}
