package dev.postern.policy.action;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An HTTP request as the agent asked for it: method, absolute URL, extra query parameters, headers
 * and an optional text body. Nothing here is trusted yet; the engine canonicalizes and judges it.
 */
public record HttpRequestAction(
        String method,
        String url,
        List<QueryParameter> query,
        List<HeaderField> headers,
        Optional<String> body) implements Action {
    /** The generic tool that asks for this action; its name is the kernel's, the protocol's kind repeats none. */
    public static final String TOOL = "http_request";


    /** The longest URL Postern accepts, in characters: the tool schema's bound and the policy's check. */
    public static final int MAX_URL_LENGTH = 8192;

    public HttpRequestAction {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(url, "url");
        query = List.copyOf(Objects.requireNonNull(query, "query"));
        headers = List.copyOf(Objects.requireNonNull(headers, "headers"));
        Objects.requireNonNull(body, "body");
    }
}
