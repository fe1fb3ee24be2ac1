package dev.postern.app;

import dev.postern.app.config.GatewayConfig;
import dev.postern.policy.PolicyEngine;
import dev.postern.protocol.tools.ToolCatalog;
import java.util.Objects;

/**
 * The policy one session decides by, which a config reload replaces between calls: the config it came
 * from, its engine (what {@link ToolCallService} asks at each decision), its rate limits and its tool
 * catalog. {@link #install} puts a new config's engine in place first, then its limits, then its
 * catalog (which tells the client when {@code tools/list} changed); a call already decided runs under the
 * engine that decided it, a call bound under the old catalog is decided by the new engine, so a narrowed
 * policy holds from the next decision on. Only what {@link ConfigReload} lets change live reaches here.
 * Thread-safe; installs are serialized.
 */
final class PolicyInForce {
    private final RateLimits rateLimits;
    private final LiveCatalog catalog;
    private volatile GatewayConfig config;
    private volatile PolicyEngine engine;

    PolicyInForce(GatewayConfig config, RateLimits rateLimits, LiveCatalog catalog) {
        this.config = Objects.requireNonNull(config, "config");
        this.engine = Gateway.policyEngine(config);
        this.rateLimits = Objects.requireNonNull(rateLimits, "rateLimits");
        this.catalog = Objects.requireNonNull(catalog, "catalog");
    }

    /** The config in force. */
    GatewayConfig config() {
        return config;
    }

    /** The engine the next decision uses. */
    PolicyEngine engine() {
        return engine;
    }

    /** From the next decision on, {@code next}'s policy; the caller has checked with {@link ConfigReload} that it may change live. */
    synchronized void install(GatewayConfig next) {
        Objects.requireNonNull(next, "next");
        engine = Gateway.policyEngine(next);
        rateLimits.follow(next.policy());
        config = next;
        catalog.replace(Gateway.catalog(next));
    }
}
