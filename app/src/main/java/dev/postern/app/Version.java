package dev.postern.app;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Postern's version, as Maven filtered it into the jar. */
public final class Version {
    private Version() {
    }

    public static String current() {
        try (InputStream in = Version.class.getResourceAsStream("/dev/postern/app/version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
