package dev.postern.executor.http;

import java.io.IOException;
import java.net.Proxy;
import java.net.Socket;
import javax.net.ssl.SSLContext;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.SchemePortResolver;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.DefaultSchemePortResolver;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.io.DefaultHttpClientConnectionOperator;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.impl.routing.DefaultRoutePlanner;
import org.apache.hc.client5.http.io.DetachedSocketFactory;
import org.apache.hc.client5.http.io.HttpClientConnectionOperator;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.client5.http.ssl.TlsSocketStrategy;
import org.apache.hc.core5.http.URIScheme;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http.config.RegistryBuilder;
import org.apache.hc.core5.util.TimeValue;

/**
 * Builds the one HttpClient configuration Postern uses: no retries, no redirects, no cookies, no
 * authentication exchanges, no proxy of any kind (HTTP or SOCKS, configured or from the system),
 * a bounded pool, bounded response heads, TLS with chain and host name verification, and every
 * address coming from the given resolver. Stateless.
 *
 * <p>Keep-alive: a connection returns to the pool only when its response ended exactly where it
 * said ({@link ExactEndConnection}), and a pooled connection is reused only by calls to the target
 * that opened it: the executor gives every call its target's name as the HttpClient user token,
 * which keys pooled connections, so targets that share an origin never share a connection.
 */
final class Clients {
    static final int MAX_CONNECTIONS = 32;
    static final int MAX_CONNECTIONS_PER_ROUTE = 8;
    static final int MAX_HEAD_LINE_BYTES = 32 * 1024;
    static final int MAX_HEAD_FIELDS = 200;

    private Clients() {
    }

    static CloseableHttpClient build(DnsResolver resolver, SSLContext tls) {
        PoolingHttpClientConnectionManager pool = new DirectConnections()
                .setDnsResolver(resolver)
                .setTlsSocketStrategy(new DefaultClientTlsStrategy(tls))
                .setConnectionFactory(ExactEndConnection.factory(Http1Config.custom()
                        .setMaxLineLength(MAX_HEAD_LINE_BYTES)
                        .setMaxHeaderCount(MAX_HEAD_FIELDS)
                        .build()))
                .setMaxConnTotal(MAX_CONNECTIONS)
                .setMaxConnPerRoute(MAX_CONNECTIONS_PER_ROUTE)
                .setDefaultConnectionConfig(ConnectionConfig.custom()
                        // A pooled connection idle this long is checked before reuse: with retries
                        // off, a stale one would otherwise fail the call.
                        .setValidateAfterInactivity(TimeValue.ofSeconds(1))
                        .setTimeToLive(TimeValue.ofMinutes(5))
                        .build())
                .build();
        return HttpClientBuilder.create()
                .setConnectionManager(pool)
                .setRoutePlanner(new DefaultRoutePlanner(DefaultSchemePortResolver.INSTANCE))
                .disableAutomaticRetries()
                .disableRedirectHandling()
                .disableCookieManagement()
                .disableAuthCaching()
                .setUserAgent("Postern")
                .evictExpiredConnections()
                .evictIdleConnections(TimeValue.ofSeconds(30))
                .build();
    }

    /**
     * A pool whose sockets are created with {@link Proxy#NO_PROXY}: a plain {@code new Socket()}
     * would consult the system's SOCKS settings and ProxySelector.
     */
    private static final class DirectConnections extends PoolingHttpClientConnectionManagerBuilder {
        @Override
        protected HttpClientConnectionOperator createConnectionOperator(
                SchemePortResolver ports, DnsResolver dns, TlsSocketStrategy tls) {
            return new DefaultHttpClientConnectionOperator(new DirectSockets(), ports, dns,
                    RegistryBuilder.<TlsSocketStrategy>create().register(URIScheme.HTTPS.id, tls).build());
        }
    }

    private static final class DirectSockets implements DetachedSocketFactory {
        @Override
        public Socket create(Proxy socksProxy) throws IOException {
            return new Socket(Proxy.NO_PROXY);
        }

        @Override
        public Socket create(String schemeName, Proxy socksProxy) throws IOException {
            return new Socket(Proxy.NO_PROXY);
        }
    }
}
