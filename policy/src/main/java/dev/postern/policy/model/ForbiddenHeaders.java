package dev.postern.policy.model;

import java.util.Locale;
import java.util.Set;

/**
 * The request headers an agent may never set, because the executor owns them (framing, routing,
 * credentials, proxies): the one list both the policy (a call setting one is denied) and the config
 * loader (a target listing one is refused) use. Names compare case-insensitively.
 */
public final class ForbiddenHeaders {
    /** Forbidden by exact name, lower-case. */
    static final Set<String> NAMES = Set.of(
            "host", "authorization", "proxy-authorization", "cookie", "connection", "content-length",
            "transfer-encoding", "te", "upgrade", "expect", "keep-alive", "trailer", "forwarded");
    /** Forbidden by prefix, lower-case. */
    static final Set<String> PREFIXES = Set.of("x-forwarded-", "proxy-");

    private ForbiddenHeaders() {
    }

    /** True when no agent may set a header of this name. */
    public static boolean contains(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return NAMES.contains(lower) || PREFIXES.stream().anyMatch(lower::startsWith);
    }
}
