package dev.postern.journal;

import dev.postern.policy.AuthorizedAction;

/** {@link Permits} for tests outside this package: real permits from a real engine ({@code api} over HTTP, host {@code web} over SSH). */
public final class SamplePermits {
    private SamplePermits() {
    }

    public static AuthorizedAction http(String path) {
        return Permits.http(path, "q", "body");
    }

    /** A POST to {@code path} on {@code api} with query parameter {@code q} and a body. */
    public static AuthorizedAction http(String path, String query, String body) {
        return Permits.http(path, query, body);
    }

    public static AuthorizedAction ssh(String word) {
        return Permits.ssh(word);
    }
}
