package dev.postern.policy.outcome;

import dev.postern.policy.action.HeaderField;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A response received from a target: status, headers, the body bytes read up to the cap, and
 * whether the body was cut there. Credentials have already been masked by the executor.
 */
public record HttpResponseOutcome(
        String target, int status, List<HeaderField> headers, byte[] body, boolean truncated) implements Outcome {

    public HttpResponseOutcome {
        Objects.requireNonNull(target, "target");
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must be 100..999, got " + status);
        }
        headers = List.copyOf(Objects.requireNonNull(headers, "headers"));
        body = Objects.requireNonNull(body, "body").clone();
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HttpResponseOutcome other && target.equals(other.target) && status == other.status
                && headers.equals(other.headers) && java.util.Arrays.equals(body, other.body)
                && truncated == other.truncated;
    }

    @Override
    public int hashCode() {
        return Objects.hash(target, status, headers, java.util.Arrays.hashCode(body), truncated);
    }

    @Override
    public String toString() {
        return "HttpResponseOutcome[target=" + target + ", status=" + status + ", body=" + body.length
                + " bytes, truncated=" + truncated + ']';
    }

    @Override
    public List<CapturedStream> streams() {
        return List.of(new CapturedStream("body", body, truncated));
    }

    @Override
    public List<byte[]> visibleParts() {
        List<byte[]> parts = new java.util.ArrayList<>();
        parts.add(target.getBytes(StandardCharsets.UTF_8));
        for (HeaderField h : headers) {
            parts.add(h.name().getBytes(StandardCharsets.UTF_8));
            parts.add(h.value().getBytes(StandardCharsets.UTF_8));
        }
        parts.add(body.clone());
        return parts;
    }
}
