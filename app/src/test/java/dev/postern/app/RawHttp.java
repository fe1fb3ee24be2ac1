package dev.postern.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * HTTP/1.1 written by hand over a socket, so a test can send exactly the {@code Host} and
 * {@code Origin} a browser, a rebound DNS name or another site would (the JDK's HttpClient refuses
 * to set {@code Host}). One request per connection. For tests.
 */
final class RawHttp {
    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {
    }

    static Response get(int port, String path, String host) throws IOException {
        return send(port, "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    }

    static Response post(int port, String path, String host, String origin, String form) throws IOException {
        byte[] body = form.getBytes(StandardCharsets.US_ASCII);
        return send(port, "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + (origin == null ? "" : "Origin: " + origin + "\r\n")
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n"
                + form);
    }

    static Response send(int port, String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.1"), port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String[] head = text.substring(0, end).split("\r\n");
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < head.length; i++) {
                int colon = head[i].indexOf(':');
                headers.put(head[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), head[i].substring(colon + 1).trim());
            }
            return new Response(Integer.parseInt(head[0].split(" ")[1]), headers, text.substring(end + 4));
        }
    }

    /** The value of the hidden form field {@code name} in a page. */
    static String field(String page, String name) {
        Matcher m = Pattern.compile("name=\"" + name + "\" value=\"([^\"]*)\"").matcher(page);
        if (!m.find()) {
            throw new AssertionError("the page has no field " + name + ":\n" + page);
        }
        return m.group(1);
    }
}
