package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ForbiddenHeaders;
import dev.postern.policy.model.HttpAuth;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.TypedTool;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.TrustStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads the {@code http} section (DESIGN §4) into {@link HttpTarget} allowances: the base URL parsed
 * by the kernel, a trust store that must exist now (so check-config catches a wrong path), headers
 * Postern sets itself refused, confirmed methods among the target's own. Stateless.
 */
public final class HttpSection implements KindSection<HttpTarget> {
    static final String POINTER = "/http/targets";

    @Override
    public Map<String, ApprovalChannel> approvalChannels(JsonNode entries) {
        Map<String, ApprovalChannel> out = new java.util.LinkedHashMap<>();
        entries.forEach(t -> {
            if (t.path("confirm").isObject()) {
                ApprovalChannel.of(t.get("confirm").path("channel").textValue())
                        .ifPresent(c -> out.put("http.target:" + t.get("name").textValue(), c));
            }
        });
        return out;
    }

    @Override
    public String pointer() {
        return POINTER;
    }

    @Override
    public Class<HttpTarget> allowanceType() {
        return HttpTarget.class;
    }

    @Override
    public String schemaFragment() {
        return "/dev/postern/app/config/http.schema.json";
    }

    @Override
    public List<String> pathFields() {
        return List.of("/trustStore/file");
    }

    @Override
    public HttpTarget entry(Reading reading, String at, JsonNode t) throws ConfigException {
        Origin origin;
        try {
            origin = Origin.parseBaseUrl(t.get("baseUrl").textValue());
        } catch (IllegalArgumentException e) {
            throw reading.error(at + "/baseUrl", e.getMessage());
        }
        Optional<HttpAuth> auth = Optional.empty();
        if (t.has("auth")) {
            JsonNode a = t.get("auth");
            CredentialRef ref = reading.credential(at + "/auth/credential", a.get("credential"));
            HttpAuth.Scheme scheme = HttpAuth.Scheme.valueOf(a.get("scheme").textValue().toUpperCase(Locale.ROOT));
            Optional<String> header = Optional.ofNullable(a.get("header")).map(JsonNode::textValue);
            try {
                auth = Optional.of(new HttpAuth(ref, scheme, header));
            } catch (IllegalArgumentException e) {
                throw reading.error(at + "/auth", e.getMessage());
            }
        }
        Optional<TrustStore> trustStore = Optional.empty();
        if (t.has("trustStore")) {
            trustStore = Optional.of(trustStore(reading, at + "/trustStore", t.get("trustStore")));
        }
        List<String> headers = Fields.strings(t.path("headers"));
        for (int i = 0; i < headers.size(); i++) {
            if (ForbiddenHeaders.contains(headers.get(i))) {
                // Listing one is an operator mistake: every call setting it would be denied anyway.
                throw reading.error(at + "/headers/" + i, "a header the agent may set, but "
                        + headers.get(i) + " is always set by Postern and never by the agent; remove it");
            }
        }
        List<String> methods = Fields.strings(t.get("methods"));
        boolean named = t.path("confirm").isObject();
        List<String> confirm = Fields.strings(named ? t.get("confirm").get("methods") : t.path("confirm"));
        for (int i = 0; i < confirm.size(); i++) {
            if (!methods.contains(confirm.get(i))) {
                throw reading.error(at + (named ? "/confirm/methods/" : "/confirm/") + i, "one of the target's methods " + methods
                        + " (a method the target does not allow needs no approval), but " + confirm.get(i) + " is not");
            }
        }
        HttpTarget.OversizeResponse onOversize = HttpTarget.OversizeResponse.valueOf(
                t.path("onOversizeResponse").asText(ConfigDefaults.HTTP_ON_OVERSIZE_RESPONSE).toUpperCase(Locale.ROOT));
        Optional<TypedTool> tool = Fields.typedTool(reading, at, t);
        try {
            return new HttpTarget(
                    t.get("name").textValue(),
                    origin,
                    new LinkedHashSet<>(methods),
                    Fields.strings(t.get("pathPrefixes")),
                    new LinkedHashSet<>(headers),
                    auth,
                    Duration.ofMillis(t.path("timeoutMs").asLong(ConfigDefaults.HTTP_TIMEOUT_MS)),
                    t.path("maxResponseBytes").asLong(ConfigDefaults.HTTP_MAX_RESPONSE_BYTES),
                    t.path("allowPrivateAddresses").asBoolean(ConfigDefaults.HTTP_ALLOW_PRIVATE_ADDRESSES),
                    trustStore,
                    onOversize,
                    new LinkedHashSet<>(confirm),
                    Fields.rateLimit(t),
                    tool,
                    t.path("propagateTraceContext").asBoolean(ConfigDefaults.HTTP_PROPAGATE_TRACE_CONTEXT));
        } catch (IllegalArgumentException e) {
            throw reading.error(at, e.getMessage());
        }
    }

    /** A target's trust store: the file must exist now, and a password names a credential. */
    private static TrustStore trustStore(Reading reading, String at, JsonNode s) throws ConfigException {
        Path store = reading.resolve(s.get("file"));
        if (!Files.isRegularFile(store) || !Files.isReadable(store)) {
            throw reading.error(at + "/file", "a readable trust store file, but " + store + " is not one");
        }
        TrustStore.Type type = TrustStore.Type.valueOf(s.path("type").asText(ConfigDefaults.TRUST_STORE_TYPE));
        Optional<CredentialRef> password = s.has("password")
                ? Optional.of(reading.credential(at + "/password", s.get("password")))
                : Optional.empty();
        try {
            return new TrustStore(store, type, password);
        } catch (IllegalArgumentException e) {
            throw reading.error(at, e.getMessage());
        }
    }
}
