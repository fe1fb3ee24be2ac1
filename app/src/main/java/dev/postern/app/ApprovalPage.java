package dev.postern.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.postern.policy.port.ApprovalRecord.Channel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The loopback approval page (README, "Approval channels"): one JDK {@code HttpServer} on
 * 127.0.0.1 and a port the system picks, started at the first held action, serving one page per held
 * action at {@code /approval/SECRET} (128 random bits). Every request must name exactly
 * {@code Host: 127.0.0.1:PORT} (else 421: a rebound DNS name never reaches a page); a POST must carry
 * {@code Origin: http://127.0.0.1:PORT} (else 403), the page's CSRF token (else 403) and the digest of
 * the action it showed (else 403). An answered, expired or withdrawn page answers 410, an unknown
 * path 404; none of these refusals answers anything. Responses are never cached or framed and load
 * nothing from anywhere (a strict Content-Security-Policy, no script). Thread-safe.
 */
final class ApprovalPage implements LocalApprovals.Listener, AutoCloseable {
    static final String PREFIX = "/approval/";
    static final String CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none';"
            + " base-uri 'none'";
    private static final int MAX_BODY = 4096;

    private final LocalApprovals approvals;
    private final PrintStream diagnostics;
    private HttpServer server;
    private ExecutorService threads;

    ApprovalPage(LocalApprovals approvals, PrintStream diagnostics) {
        this.approvals = Objects.requireNonNull(approvals, "approvals");
        this.diagnostics = Objects.requireNonNull(diagnostics, "diagnostics");
    }

    @Override
    public void opened(LocalApprovals.Held held) {
        start();
    }

    @Override
    public void ended(LocalApprovals.Held held) {
    }

    /** The page's address for {@code held}; starts the server if it is not running. */
    synchronized String url(LocalApprovals.Held held) {
        start();
        return origin() + PREFIX + held.secret();
    }

    /** {@code http://127.0.0.1:PORT}, once started. */
    synchronized String origin() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 16);
        } catch (IOException e) {
            throw new IllegalStateException("the loopback approval page could not listen: " + e.getMessage(), e);
        }
        threads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "postern-approval-page");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            String host = x.getRequestHeaders().getFirst("Host");
            String expectedHost = "127.0.0.1:" + server.getAddress().getPort();
            if (x.getRequestHeaders().get("Host") == null || x.getRequestHeaders().get("Host").size() != 1
                    || !expectedHost.equals(host)) {
                send(x, 421, "Misdirected request.");
                return;
            }
            String path = x.getRequestURI().getRawPath();
            if (!path.startsWith(PREFIX) || x.getRequestURI().getRawQuery() != null) {
                send(x, 404, "Not found.");
                return;
            }
            String secret = path.substring(PREFIX.length());
            boolean post = "POST".equals(x.getRequestMethod());
            if (!post && !"GET".equals(x.getRequestMethod())) {
                x.getResponseHeaders().set("Allow", "GET, POST");
                send(x, 405, "Method not allowed.");
                return;
            }
            if (post && !origin().equals(x.getRequestHeaders().getFirst("Origin"))) {
                send(x, 403, "Forbidden: this form may only be sent from its own page.");
                return;
            }
            Optional<LocalApprovals.Held> found = approvals.bySecret(secret);
            if (found.isEmpty()) {
                if (approvals.endedSecret(secret)) {
                    send(x, 410, "Gone: this approval was answered, withdrawn or expired. Nothing more can be done here.");
                } else {
                    send(x, 404, "Not found.");
                }
                return;
            }
            LocalApprovals.Held held = found.get();
            if (!post) {
                sendHtml(x, 200, page(held));
                return;
            }
            Map<String, String> form = form(x.getRequestBody());
            if (form == null || !same(form.get("csrf"), held.csrf())) {
                send(x, 403, "Forbidden: the form's token is missing or not this approval's.");
                return;
            }
            if (!same(form.get("digest"), held.shown().digest())) {
                send(x, 403, "Forbidden: the form names another action.");
                return;
            }
            String decision = form.get("decision");
            if (!"approve".equals(decision) && !"deny".equals(decision)) {
                send(x, 400, "Bad request: approve or deny.");
                return;
            }
            boolean approve = decision.equals("approve");
            if (!approvals.answer(held.id(), held.shown().digest(), approve, Channel.PAGE)) {
                send(x, 410, "Gone: this approval was answered, withdrawn or expired. Nothing more can be done here.");
                return;
            }
            sendHtml(x, 200, done(approve));
        } catch (RuntimeException e) {
            diagnostics.println("postern: the approval page failed a request: " + e.getClass().getSimpleName());
        }
    }

    private static boolean same(String given, String expected) {
        return given != null && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
    }

    /** An {@code application/x-www-form-urlencoded} body of at most {@link #MAX_BODY} bytes, each name once; else null. */
    private static Map<String, String> form(InputStream body) throws IOException {
        byte[] bytes = body.readNBytes(MAX_BODY + 1);
        if (bytes.length > MAX_BODY) {
            return null;
        }
        Map<String, String> out = new HashMap<>();
        String text = new String(bytes, StandardCharsets.US_ASCII);
        if (text.isEmpty()) {
            return out;
        }
        for (String pair : text.split("&")) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                return null;
            }
            try {
                String name = URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8);
                if (out.put(name, URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8)) != null) {
                    return null;
                }
            } catch (IllegalArgumentException e) {
                return null;
            }
        }
        return out;
    }

    private static String page(LocalApprovals.Held held) {
        LocalApprovals.Shown s = held.shown();
        return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Postern: approve this action?</title>"
                + "<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#111}"
                + "pre{background:#f4f4f4;border:1px solid #ccc;padding:1rem;white-space:pre-wrap;word-break:break-all}"
                + "button{font-size:1.1rem;padding:.5rem 1.5rem;margin-right:1rem}dt{font-weight:bold}</style></head><body>"
                + "<h1>Approve this action?</h1>"
                + "<dl><dt>client</dt><dd>" + escape(s.client()) + "</dd><dt>rule</dt><dd>" + escape(s.rule())
                + "</dd><dt>approval id</dt><dd>" + escape(held.id()) + "</dd><dt>expires</dt><dd>" + held.expiry() + "</dd></dl>"
                + "<pre>" + escape(s.message()) + "</pre>"
                + "<form method=\"post\"><input type=\"hidden\" name=\"csrf\" value=\"" + escape(held.csrf()) + "\">"
                + "<input type=\"hidden\" name=\"digest\" value=\"" + escape(s.digest()) + "\">"
                + "<button type=\"submit\" name=\"decision\" value=\"approve\">Approve</button>"
                + "<button type=\"submit\" name=\"decision\" value=\"deny\">Deny</button></form>"
                + "<p>Approve runs exactly this action, once. Deny, or no answer before it expires, runs nothing.</p>"
                + "</body></html>";
    }

    private static String done(boolean approved) {
        return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Postern: " + (approved ? "approved" : "denied")
                + "</title></head><body><h1>" + (approved ? "Approved" : "Denied") + "</h1><p>"
                + (approved ? "The action runs once." : "Nothing runs.") + " You can close this tab.</p></body></html>";
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            switch (c) {
                case '<': b.append("&lt;"); break;
                case '>': b.append("&gt;"); break;
                case '&': b.append("&amp;"); break;
                case '"': b.append("&quot;"); break;
                case '\'': b.append("&#39;"); break;
                default: b.appendCodePoint(c);
            }
        });
        return b.toString();
    }

    private static void headers(HttpExchange x, String type) {
        x.getResponseHeaders().set("Content-Type", type);
        x.getResponseHeaders().set("Cache-Control", "no-store");
        x.getResponseHeaders().set("X-Frame-Options", "DENY");
        x.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        // Not no-referrer: under it a browser sends "Origin: null" even with the page's own form, which the
        // Origin check must refuse. same-origin keeps the path (the secret) from any other site.
        x.getResponseHeaders().set("Referrer-Policy", "same-origin");
        x.getResponseHeaders().set("Content-Security-Policy", CSP);
    }

    private static void send(HttpExchange x, int status, String text) throws IOException {
        headers(x, "text/plain; charset=utf-8");
        write(x, status, text);
    }

    private static void sendHtml(HttpExchange x, int status, String html) throws IOException {
        headers(x, "text/html; charset=utf-8");
        write(x, status, html);
    }

    private static void write(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            server.stop(0);
            threads.shutdownNow();
        }
    }
}
