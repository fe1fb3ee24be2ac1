package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMember;
import dev.postern.app.architecture.ArchitectureRules;
import dev.postern.policy.RegistrationPoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * CONTRIBUTING.md's "Adding an executor adapter" names the places a new kind touches outside its own
 * files; the code marks the same places with {@link RegistrationPoint}. This keeps the two lists equal,
 * so the guide can neither promise a place the code lacks nor forget one the code has.
 */
class RegistrationPointsTest {
    private static final String START = "<!-- registration points -->";
    private static final String END = "<!-- end of registration points -->";
    private static final Pattern IDENTIFIER = Pattern.compile("`(dev\\.postern\\.[A-Za-z0-9_.]+(?:#[A-Za-z0-9_]+)?)`");

    @Test
    void theGuideListsExactlyTheRegistrationPointsInTheCode() throws IOException {
        assertEquals(inTheCode(), inTheGuide());
    }

    @Test
    void thereAreFourStepsAndTenPlaces() throws IOException {
        // Kernel: four sealed types and the engine's rules; protocol: EffectKind; app: config section, its
        // defaults, its deep checks (KindCheck) and KINDS.
        Set<String> listed = inTheGuide();
        assertEquals(10, listed.size(), () -> "the guide lists " + listed);
    }

    private static Set<String> inTheCode() {
        JavaClasses production = ArchitectureRules.productionClasses();
        Set<String> marked = new TreeSet<>();
        for (JavaClass c : production) {
            if (c.isAnnotatedWith(RegistrationPoint.class)) {
                marked.add(c.getName());
            }
            for (JavaMember m : c.getMembers()) {
                if (m.isAnnotatedWith(RegistrationPoint.class)) {
                    String name = m.getName().equals("<init>") ? c.getSimpleName() : m.getName();
                    marked.add(c.getName() + "#" + name);
                }
            }
        }
        assertTrue(marked.size() >= 2, () -> "found too few @RegistrationPoint marks: " + marked);
        return marked;
    }

    private static Set<String> inTheGuide() throws IOException {
        String guide = Files.readString(Checkout.root().resolve("CONTRIBUTING.md"), StandardCharsets.UTF_8);
        int start = guide.indexOf(START);
        int end = guide.indexOf(END);
        assertTrue(start >= 0 && end > start, "CONTRIBUTING.md has no " + START + " ... " + END + " list");
        Set<String> listed = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(guide.substring(start, end));
        while (m.find()) {
            listed.add(m.group(1));
        }
        return listed;
    }
}
