package dev.postern.executor.http;

import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.action.HeaderField;
import dev.postern.policy.model.HttpAuth;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.TrustStore;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.Outcome;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.CallTrace;
import dev.postern.policy.port.Cancellation;
import dev.postern.policy.port.CredentialStore;
import dev.postern.policy.port.CredentialUnavailableException;
import dev.postern.policy.port.Secret;
import dev.postern.policy.port.SecretMask;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.ssl.SSLContexts;
import org.apache.hc.core5.util.Timeout;

/**
 * Executes {@code http_request} permits on Apache HttpClient 5: exactly one request per call to the
 * permitted URI, with the permitted headers and the target's credential, no retries, redirects,
 * cookies or proxies, addresses judged as they are dialed, the target's timeout as a deadline for
 * the whole call and its byte cap on the body read (a longer body is truncated, or refused with
 * {@code RESPONSE_TOO_LARGE} when the target says so). A response that echoes a credential has it
 * masked. Thread-safe; one instance serves a whole session and holds two bounded connection pools
 * for targets that trust the JVM's default authorities (one for targets that may reach private
 * addresses, one for the rest, so no connection crosses), and one more pool per trust store a
 * target names, built on its first call and trusting only that store's certificates. Within a pool
 * a connection is reused only by calls to the target that opened it, and only after a response
 * that ended exactly at its declared end ({@link ExactEndConnection}); a response seen to go on past
 * that end fails its call with {@code UPSTREAM_PROTOCOL_ERROR}.
 *
 * <p>Limit: the deadline aborts connecting, sending and reading, but not a system DNS lookup that
 * hangs; such a call returns when the lookup does.
 */
public final class HttpActionExecutor implements ActionExecutor<AuthorizedHttpRequest> {
    static final int MAX_RESPONSE_HEADERS = 100;
    static final int MAX_HEADER_VALUE_CHARS = 8 * 1024;
    private static final int READ_CHUNK = 8 * 1024;
    private static final long MAX_BODY_ARRAY = Integer.MAX_VALUE - 16;

    private final CredentialStore credentials;
    private final CheckingDnsResolver.Lookup lookup;
    private final CloseableHttpClient publicOnly;
    private final CloseableHttpClient privateAllowed;
    private final Deadlines deadlines;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Clients for targets with their own trust store; guarded by itself. A store that failed to load is not kept. */
    private final Map<TrustKey, CloseableHttpClient> trusting = new HashMap<>();

    /** An executor that resolves names with the system resolver and trusts the JDK's default CAs. */
    public HttpActionExecutor(CredentialStore credentials) {
        this(credentials, CheckingDnsResolver.SYSTEM, SSLContexts.createDefault());
    }

    /** The seam for tests: a name lookup that needs no DNS, and the trust a test server needs. */
    HttpActionExecutor(CredentialStore credentials, CheckingDnsResolver.Lookup lookup, SSLContext tls) {
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        this.lookup = Objects.requireNonNull(lookup, "lookup");
        Objects.requireNonNull(tls, "tls");
        this.publicOnly = Clients.build(new CheckingDnsResolver(lookup, false), tls);
        this.privateAllowed = Clients.build(new CheckingDnsResolver(lookup, true), tls);
        this.deadlines = new Deadlines("postern-http-deadline");
    }

    @Override
    public Class<AuthorizedHttpRequest> permitType() {
        return AuthorizedHttpRequest.class;
    }

    @Override
    public Outcome execute(AuthorizedHttpRequest permit, Cancellation cancellation) {
        try {
            return run(permit, cancellation);
        } catch (RuntimeException e) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the HTTP executor failed unexpectedly")
                    .withDetail(SecretMask.of(credentials).mask(ExecutionFailure.chain(e)));
        }
    }

    private Outcome run(AuthorizedHttpRequest permit, Cancellation cancellation) {
        Objects.requireNonNull(permit, "permit");
        Objects.requireNonNull(cancellation, "cancellation");
        if (closed.get()) {
            return new ExecutionFailure(FailureCode.EXECUTOR_FAILED, "the HTTP executor is closed");
        }
        if (cancellation.isCancelled()) {
            return new ExecutionFailure(FailureCode.CANCELLED, "cancelled before the request was sent");
        }
        HttpTarget target = permit.target();
        List<byte[]> secrets = new ArrayList<>();
        for (Secret s : credentials.all()) {
            secrets.add(s.reveal());
        }
        Injection injection = null;
        if (target.auth().isPresent()) {
            HttpAuth auth = target.auth().get();
            try {
                injection = Injection.of(auth, credentials.resolve(auth.credential()));
            } catch (CredentialUnavailableException e) {
                SecretMask early = new SecretMask(secrets);
                return new ExecutionFailure(FailureCode.CREDENTIAL_UNAVAILABLE, early.mask(String.valueOf(e.getMessage())))
                        .withDetail(early.mask(e.detail()));
            }
            secrets.addAll(injection.maskForms());
        }
        SecretMask mask = new SecretMask(secrets);
        CloseableHttpClient client;
        try {
            client = clientFor(target, mask);
        } catch (CredentialUnavailableException e) {
            return new ExecutionFailure(FailureCode.CREDENTIAL_UNAVAILABLE, mask.mask(
                    "the trust store password of target " + target.name() + " cannot be read: " + e.getMessage()))
                    .withDetail(mask.mask(e.detail()));
        } catch (TrustStores.UnreadableTrustStoreException e) {
            return new ExecutionFailure(FailureCode.TLS_FAILED, "target " + target.name() + ": its trust store cannot be read")
                    .withDetail(e.getMessage());
        }

        HttpUriRequestBase request = new HttpUriRequestBase(permit.method(), permit.uri());
        for (HeaderField h : permit.headers()) {
            request.addHeader(h.name(), h.value());
        }
        if (injection != null) {
            request.setHeader(injection.name(), injection.value());
        }
        permit.body().ifPresent(b -> request.setEntity(new ByteArrayEntity(b.getBytes(StandardCharsets.UTF_8), null)));
        long millis = Math.max(1, target.timeout().toMillis());
        request.setConfig(requestConfig(Timeout.ofMilliseconds(millis)));

        // A CLIENT span of the call's trace; only a target that opts in sends its context (the agent's own header replaced).
        // The permit's URL is on the target's origin (the rules matched it there), whose port is always explicit.
        CallTrace.Client span = cancellation.trace().client(new CallTrace.Http(permit.method(), target.origin().scheme(),
                target.origin().host(), target.origin().port(), target.name()));
        if (target.propagateTraceContext()) {
            span.context().ifPresent(c -> {
                request.setHeader("traceparent", c.traceparent());
                request.removeHeaders("tracestate");
                c.tracestate().ifPresent(state -> request.setHeader("tracestate", state));
            });
        }
        Abort abort = new Abort(request);
        Deadlines.Deadline deadline = null;
        Outcome outcome;
        try {
            cancellation.onCancel(() -> abort.fire(FailureCode.CANCELLED));
            deadline = deadlines.after(millis, () -> abort.fire(FailureCode.TIMEOUT));
            outcome = exchange(client, request, target, mask);
        } catch (IOException | RuntimeException e) {
            request.cancel();
            outcome = HttpFailures.of(abort.reason(), e, target, millis)
                    .withDetail(mask.mask("dialing " + permit.uri().getHost() + ':' + permit.uri().getPort() + ": "
                            + ExecutionFailure.chain(e)));
        } finally {
            abort.finish();
            if (deadline != null) {
                deadline.cancel();
            }
        }
        span.ended(traced(outcome));
        return outcome;
    }

    /** What the CLIENT span says of {@code outcome}: the status, and an error type for a failure or a status of 400 and over. */
    private static CallTrace.Result traced(Outcome outcome) {
        if (outcome instanceof HttpResponseOutcome r) {
            return new CallTrace.Result(OptionalInt.of(r.status()), r.status() >= 400 ? Optional.of(Integer.toString(r.status())) : Optional.empty());
        }
        if (outcome instanceof ExecutionFailure f) {
            return new CallTrace.Result(OptionalInt.empty(), Optional.of(f.code().name()));
        }
        return new CallTrace.Result(OptionalInt.empty(), Optional.empty());
    }

    /**
     * The client whose pool and trust fit the target: a default one, or the one for its trust store
     * (built on first use; a store that cannot be read fails the call and is tried again next time).
     */
    private CloseableHttpClient clientFor(HttpTarget target, SecretMask mask)
            throws TrustStores.UnreadableTrustStoreException, CredentialUnavailableException {
        if (target.trustStore().isEmpty()) {
            return target.allowPrivateAddresses() ? privateAllowed : publicOnly;
        }
        TrustKey key = new TrustKey(target.trustStore().get(), target.allowPrivateAddresses());
        synchronized (trusting) {
            if (closed.get()) {
                throw new IllegalStateException("the HTTP executor is closed");
            }
            CloseableHttpClient client = trusting.get(key);
            if (client == null) {
                SSLContext tls = TrustStores.context(key.store(), credentials, mask);
                client = Clients.build(new CheckingDnsResolver(lookup, key.allowPrivateAddresses()), tls);
                trusting.put(key, client);
            }
            return client;
        }
    }

    @SuppressWarnings("deprecation") // the per-request connect timeout is deprecated but honoured, and per target
    private static RequestConfig requestConfig(Timeout timeout) {
        return RequestConfig.custom()
                .setConnectionRequestTimeout(timeout)
                .setConnectTimeout(timeout)
                .setResponseTimeout(timeout)
                .setRedirectsEnabled(false)
                .setAuthenticationEnabled(false)
                .setExpectContinueEnabled(false)
                .setProtocolUpgradeEnabled(false)
                .build();
    }

    private static Outcome exchange(CloseableHttpClient client, HttpUriRequestBase request, HttpTarget target,
                                    SecretMask mask) throws IOException {
        HttpClientContext context = HttpClientContext.create();
        // Pooled connections are keyed by this token: only calls to the same target share one.
        context.setUserToken(new PoolKey(target.name()));
        ClassicHttpResponse response = client.executeOpen(null, request, context);
        boolean reusable = false;
        try {
            List<HeaderField> headers = headers(response, mask);
            byte[] body = new byte[0];
            boolean truncated = false;
            HttpEntity entity = response.getEntity();
            if (entity != null) {
                // One byte past the cap tells a cut body from a complete one; the mask's lookahead
                // past it recognises a secret that straddles the cut, so it is masked whole.
                int lookahead = Math.max(1, mask.lookahead());
                long cap = Math.min(target.maxResponseBytes(), MAX_BODY_ARRAY - lookahead);
                boolean refuse = target.onOversizeResponse() == HttpTarget.OversizeResponse.REFUSE;
                if (refuse && entity.getContentLength() > cap) {
                    return tooLarge(target, response.getCode(), cap);
                }
                ByteArrayOutputStream read = new ByteArrayOutputStream((int) Math.min(cap, READ_CHUNK));
                readCapped(entity, cap + lookahead, read);
                truncated = read.size() > cap;
                if (refuse && truncated) {
                    return tooLarge(target, response.getCode(), cap);
                }
                body = truncated ? mask.maskCut(read.toByteArray(), (int) cap) : mask.mask(read.toByteArray(), false);
            }
            reusable = !truncated;
            return new HttpResponseOutcome(target.name(), response.getCode(), headers, body, truncated);
        } finally {
            if (!reusable) {
                // Abort before closing: closing a half-read body would read the rest to reuse the connection.
                request.cancel();
            }
            try {
                response.close();
            } catch (IOException | RuntimeException e) {
                // The connection is gone either way; the outcome is already decided.
            }
        }
    }

    /** The refusal for a body over the cap; the caller aborts the connection, so the rest is never read. */
    private static ExecutionFailure tooLarge(HttpTarget target, int status, long cap) {
        return new ExecutionFailure(FailureCode.RESPONSE_TOO_LARGE, "the response from " + target.name() + " (status "
                + status + ") is longer than its maxResponseBytes of " + cap
                + " bytes and the target refuses oversize responses, so no body is returned");
    }

    /**
     * Reads at most {@code limit} bytes into {@code out}, stopping early where the body ends; a body
     * read to its end is closed here, so that its end is checked ({@link ExactEndConnection}) before
     * any outcome exists.
     */
    private static void readCapped(HttpEntity entity, long limit, ByteArrayOutputStream out) throws IOException {
        InputStream in = entity.getContent();
        if (in == null) {
            return;
        }
        byte[] buffer = new byte[READ_CHUNK];
        long remaining = limit;
        while (remaining > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, remaining));
            if (n < 0) {
                in.close();
                return;
            }
            out.write(buffer, 0, n);
            remaining -= n;
        }
    }

    private static List<HeaderField> headers(ClassicHttpResponse response, SecretMask mask) {
        Header[] all = response.getHeaders();
        List<HeaderField> out = new ArrayList<>(Math.min(all.length, MAX_RESPONSE_HEADERS));
        for (int i = 0; i < all.length && i < MAX_RESPONSE_HEADERS; i++) {
            String value = mask.mask(all[i].getValue() == null ? "" : all[i].getValue());
            if (value.length() > MAX_HEADER_VALUE_CHARS) {
                value = value.substring(0, MAX_HEADER_VALUE_CHARS);
            }
            out.add(new HeaderField(mask.mask(all[i].getName()), value));
        }
        return out;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            publicOnly.close(CloseMode.IMMEDIATE);
            privateAllowed.close(CloseMode.IMMEDIATE);
            synchronized (trusting) {
                trusting.values().forEach(c -> c.close(CloseMode.IMMEDIATE));
                trusting.clear();
            }
            deadlines.close();
        }
    }

    /** The pool key of a target's connections (the HttpClient user token). */
    private record PoolKey(String target) {
    }

    /** What a trust-store client is shared by: the same trusted certificates and the same address rule. */
    private record TrustKey(TrustStore store, boolean allowPrivateAddresses) {
    }

    /**
     * Why an exchange was aborted from outside (deadline or cancellation); the first reason wins
     * and nothing is aborted once the call has finished.
     */
    private static final class Abort {
        private final HttpUriRequestBase request;
        private final AtomicReference<FailureCode> reason = new AtomicReference<>();
        private volatile boolean finished;

        Abort(HttpUriRequestBase request) {
            this.request = request;
        }

        void fire(FailureCode code) {
            if (!finished && reason.compareAndSet(null, code)) {
                request.cancel();
            }
        }

        FailureCode reason() {
            return reason.get();
        }

        void finish() {
            finished = true;
        }
    }

    /**
     * The header that carries a target's credential, and the byte strings to mask for it: the
     * secret as stored, and for Basic also its Base64 and the password alone (the user name is not
     * secret and is not masked). The token of a bearer or header credential is the secret itself.
     */
    private record Injection(String name, String value, List<byte[]> maskForms) {

        static Injection of(HttpAuth auth, Secret secret) throws CredentialUnavailableException {
            byte[] raw = secret.reveal();
            String credential = auth.credential().name();
            if (auth.scheme() == HttpAuth.Scheme.BASIC) {
                int colon = indexOf(raw, (byte) ':');
                if (colon < 0) {
                    throw new CredentialUnavailableException(
                            "credential " + credential + " must have the form user:password for basic auth");
                }
                String encoded = Base64.getEncoder().encodeToString(raw);
                // The password alone is masked too: a target may echo just that part.
                byte[] password = Arrays.copyOfRange(raw, colon + 1, raw.length);
                return new Injection("Authorization", "Basic " + encoded,
                        List.of(raw, encoded.getBytes(StandardCharsets.US_ASCII), password));
            }
            for (byte b : raw) {
                if (b < 0x20 || b == 0x7f) {
                    // Also rejects non-ASCII (negative bytes): a header value must be visible ASCII.
                    throw new CredentialUnavailableException(
                            "credential " + credential + " holds characters a header value may not carry");
                }
            }
            String value = new String(raw, StandardCharsets.US_ASCII);
            if (auth.scheme() == HttpAuth.Scheme.BEARER) {
                return new Injection("Authorization", "Bearer " + value, List.of(raw));
            }
            return new Injection(auth.headerName().orElseThrow(), value, List.of(raw));
        }

        private static int indexOf(byte[] bytes, byte b) {
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == b) {
                    return i;
                }
            }
            return -1;
        }
    }
}
