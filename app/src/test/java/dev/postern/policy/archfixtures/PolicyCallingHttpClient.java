package dev.postern.policy.archfixtures;

import org.apache.hc.client5.http.classic.methods.HttpGet;

/** Violation: the kernel knowing the HTTP adapter's library. Never run. */
public final class PolicyCallingHttpClient {
    private PolicyCallingHttpClient() {
    }

    static HttpGet request(String url) {
        return new HttpGet(url);
    }
}
