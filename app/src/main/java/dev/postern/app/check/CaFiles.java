package dev.postern.app.check;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says in words why a CA file holds no certificate the PostgreSQL driver can read (it reads the file
 * with {@link CertificateFactory#generateCertificates}, PEM or DER): empty, not PEM, a block that is
 * not a certificate (a private key, a request), a certificate block that is broken, a file that
 * cannot be read. Never an exception's class or message, and never any of the file's content but
 * the labels of its PEM blocks. Stateless.
 *
 * <p>Limits: a certificate the driver reads is not judged further (expiry, CA flag); a file of
 * several blocks is described by its first problem only.
 */
final class CaFiles {
    /** A PEM block's label as RFC 7468 writes it; anything else is not shown. */
    private static final Pattern BEGIN = Pattern.compile("-----BEGIN ([A-Z0-9]+(?: [A-Z0-9]+){0,7})-----");
    private static final String CERTIFICATE = "CERTIFICATE";
    private static final String ONLY_CERTIFICATES = " (a CA file holds only CERTIFICATE blocks)";

    private CaFiles() {
    }

    /** What is wrong with {@code file}, as a phrase that follows its name; empty when the driver reads a certificate from it. */
    static Optional<String> problem(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.of("no longer exists");
        } catch (AccessDeniedException e) {
            return Optional.of("cannot be read: permission denied");
        } catch (FileSystemException e) {
            return Optional.of("cannot be read" + (e.getReason() == null ? "" : ": " + e.getReason()));
        } catch (IOException e) {
            return Optional.of("cannot be read");
        }
        if (bytes.length == 0) {
            return Optional.of("is empty");
        }
        try {
            if (!factory().generateCertificates(new ByteArrayInputStream(bytes)).isEmpty()) {
                return Optional.empty();
            }
        } catch (CertificateException e) {
            // described below, from the bytes
        }
        return Optional.of(unreadable(bytes));
    }

    private static String unreadable(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        if (text.isBlank()) {
            return "holds only white space";
        }
        Matcher begin = BEGIN.matcher(text);
        List<String> labels = new ArrayList<>();
        List<Integer> bodies = new ArrayList<>();
        while (begin.find()) {
            labels.add(begin.group(1));
            bodies.add(begin.end());
        }
        if (labels.isEmpty()) {
            return bytes[0] == 0x30
                    ? "is not a certificate: it is binary DER that does not decode to an X.509 certificate"
                    : "is not a certificate: it has no -----BEGIN CERTIFICATE----- line and is not a DER certificate";
        }
        Set<String> others = new LinkedHashSet<>(labels);
        others.remove(CERTIFICATE);
        if (!others.isEmpty()) {
            String blocks = String.join(", ", others) + (others.size() == 1 ? " block" : " blocks");
            return labels.contains(CERTIFICATE)
                    ? "holds a " + blocks + " besides its certificates, which the driver cannot read" + ONLY_CERTIFICATES
                    : "holds a " + blocks + ", which " + (others.size() == 1 ? "is" : "are") + " not a certificate" + ONLY_CERTIFICATES;
        }
        for (int i = 0; i < labels.size(); i++) {
            String block = "its CERTIFICATE block " + (i + 1);
            int end = text.indexOf("-----END " + CERTIFICATE + "-----", bodies.get(i));
            int next = i + 1 < bodies.size() ? bodies.get(i + 1) : Integer.MAX_VALUE;
            if (end < 0 || end > next) {
                return "is not a certificate: " + block + " has no -----END CERTIFICATE----- line";
            }
            byte[] der;
            try {
                der = Base64.getDecoder().decode(text.substring(bodies.get(i), end).replaceAll("\\s", ""));
            } catch (IllegalArgumentException e) {
                return "is not a certificate: " + block + " is not valid base64";
            }
            try {
                factory().generateCertificate(new ByteArrayInputStream(der));
            } catch (CertificateException e) {
                return "is not a certificate: " + block + " does not decode to an X.509 certificate";
            }
        }
        return "holds no certificate the driver can read";
    }

    private static CertificateFactory factory() throws CertificateException {
        return CertificateFactory.getInstance("X.509");
    }
}
