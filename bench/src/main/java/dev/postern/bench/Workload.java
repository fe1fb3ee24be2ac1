package dev.postern.bench;

import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.Policy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The typical traffic the benchmarks replay: one loopback HTTP target and the protocol lines an
 * agent sends to it. Constants only; thread-safe.
 */
final class Workload {
    static final String BASE_URL = "http://127.0.0.1:8080";
    static final int MAX_FRAME_BYTES = 1 << 20;

    static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}";
    static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

    /** A tools/call of http_request as an agent writes it: a GET with a query parameter and one header. */
    static final String HTTP_CALL = "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{"
            + "\"name\":\"http_request\",\"arguments\":{\"method\":\"GET\",\"url\":\"" + BASE_URL + "/v1/items/17\","
            + "\"query\":{\"page\":\"2\"},\"headers\":{\"Accept\":\"application/json\"}}}}";

    /** The cheapest tool call: answered by the protocol layer, no executor. */
    static final String TARGETS_CALL = "{\"jsonrpc\":\"2.0\",\"id\":43,\"method\":\"tools/call\",\"params\":{"
            + "\"name\":\"postern_targets\",\"arguments\":{}}}";

    private Workload() {
    }

    static Policy policy() {
        HttpTarget api = new HttpTarget("api", Origin.parseBaseUrl(BASE_URL), Set.of("GET", "POST"),
                List.of("/v1/", "/health"), Set.of("Accept", "X-Request-Id"), Optional.empty(),
                Duration.ofSeconds(5), 1 << 20, true);
        return Policy.of(List.of(api), List.of());
    }
}
