package dev.postern.policy.model;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Everything an operator allows: allowances of every kind (HTTP targets, SSH hosts, SQL databases,
 * upstream MCP servers), names unique within each kind, and every tool name an allowance offers of its own
 * ({@link Allowance#toolClaims()}) offered once in the whole policy. What is not here is denied; an empty policy denies everything. A new kind of
 * effect adds no component here: its allowances are one more {@link Allowance} in the list.
 */
public record Policy(List<Allowance> allowances) {

    public Policy {
        allowances = List.copyOf(Objects.requireNonNull(allowances, "allowances"));
        Set<List<Object>> seen = new HashSet<>();
        for (Allowance a : allowances) {
            if (!seen.add(List.of(a.getClass(), a.name()))) {
                throw new IllegalArgumentException(a.noun() + " \"" + a.name() + "\" is defined twice");
            }
        }
        Map<String, ToolClaim> tools = new HashMap<>();
        for (Allowance a : allowances) {
            for (ToolClaim claim : a.toolClaims()) {
                ToolClaim first = tools.putIfAbsent(claim.tool(), claim);
                if (first != null) {
                    throw new IllegalArgumentException("tool " + claim.tool() + " is offered twice: by " + first.by() + " and by "
                            + claim.by() + "; each tool name must be unique");
                }
            }
        }
    }

    /** A policy of these allowances, in this order. */
    public static Policy of(Allowance... allowances) {
        return new Policy(List.of(allowances));
    }

    /** A policy of every allowance in each list, list by list. */
    @SafeVarargs
    public static Policy of(List<? extends Allowance>... lists) {
        return new Policy(java.util.Arrays.stream(lists).<Allowance>flatMap(List::stream).toList());
    }

    public static Policy denyAll() {
        return new Policy(List.of());
    }

    /** The allowances of one kind, in policy order. */
    public <T extends Allowance> List<T> allowances(Class<T> kind) {
        return allowances.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    /** The allowance of one kind with this name (names are unique per kind), if the policy has one. */
    public <T extends Allowance> Optional<T> allowance(Class<T> kind, String name) {
        Objects.requireNonNull(name, "name");
        return allowances(kind).stream().filter(a -> a.name().equals(name)).findFirst();
    }
}
