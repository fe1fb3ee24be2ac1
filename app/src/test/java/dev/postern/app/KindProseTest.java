package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.protocol.tools.EffectKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The documents name and count the kinds of effect that {@link Gateway#kinds()} registers. Two rules,
 * read from the registry, never from a list in this test: every count of kinds in any Markdown file,
 * pom description or {@code package-info.java} ("four kinds", "3 kinds of effect", "both kinds") equals
 * the number of registered kinds; and every list of the kinds — a span of README.md, ARCHITECTURE.md or
 * CONTRIBUTING.md between {@value #START} and {@value #END}, and the root pom's description — names
 * each registered kind by its {@link EffectKind#displayName()}. A new kind therefore fails here until
 * the prose says so; the self-tests below feed the rules wrong texts to show that they can fail.
 */
class KindProseTest {
    static final String START = "<!-- kinds -->";
    static final String END = "<!-- end of kinds -->";
    /** The documents that must each hold at least one marked list of the kinds. */
    private static final List<String> LISTING_DOCUMENTS = List.of("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md");
    private static final Map<String, Integer> NUMBER_WORDS = Map.ofEntries(Map.entry("one", 1), Map.entry("two", 2),
            Map.entry("three", 3), Map.entry("four", 4), Map.entry("five", 5), Map.entry("six", 6), Map.entry("seven", 7),
            Map.entry("eight", 8), Map.entry("nine", 9), Map.entry("ten", 10), Map.entry("eleven", 11), Map.entry("twelve", 12),
            Map.entry("both", 2));
    /**
     * A count of kinds: a number (word or digits, or "both") before "kinds", "registered kinds" or "kinds of
     * effect"; not "kinds of" anything else ("two kinds of error" counts no kinds of effect).
     */
    private static final Pattern COUNT = Pattern.compile("\\b(" + String.join("|", NUMBER_WORDS.keySet()) + "|\\d+)"
            + "\\s+(?:registered\\s+)?kinds\\b(?!\\s+of\\s+(?!(?:external\\s+)?effects?\\b))", Pattern.CASE_INSENSITIVE);
    private static final Pattern DESCRIPTION = Pattern.compile("<description>(.*?)</description>", Pattern.DOTALL);

    @Test
    void everyDocumentCountsAsManyKindsAsAreRegistered() throws IOException {
        int registered = Gateway.kinds().all().size();
        List<String> problems = new ArrayList<>();
        List<Path> prose = prose();
        assertTrue(prose.size() >= 10, () -> "found too few documents to read: " + prose);
        for (Path file : prose) {
            problems.addAll(countProblems(Checkout.root().relativize(file).toString(), prose(file), registered));
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void readmeArchitectureAndContributingListEveryRegisteredKindWhereTheyListKinds() {
        List<String> names = displayNames();
        List<String> problems = new ArrayList<>();
        for (String document : LISTING_DOCUMENTS) {
            problems.addAll(listProblems(document, text(Checkout.root().resolve(document)), names, true));
        }
        assertEquals(List.of(), problems);
    }

    @Test
    void theRootPomsDescriptionNamesEveryRegisteredKind() {
        assertEquals(List.of(), descriptionProblems("pom.xml", text(Checkout.root().resolve("pom.xml")), displayNames()));
    }

    @Test
    void everyRegisteredKindHasADisplayNameOfItsOwn() {
        List<String> names = displayNames();
        assertEquals(names.size(), new HashSet<>(names).size(), () -> "display names repeat: " + names);
        names.forEach(name -> assertTrue(!name.isBlank() && name.equals(name.strip()), () -> "display name \"" + name + '"'));
    }

    // The rules fed wrong texts: each must name the fault, and a right text must pass.

    @Test
    void aCountOtherThanTheRegistrysIsReported() {
        assertEquals(List.of("ARCHITECTURE.md: \"two kinds\" says 2, but 4 kinds are registered",
                        "ARCHITECTURE.md: \"3 kinds\" says 3, but 4 kinds are registered",
                        "ARCHITECTURE.md: \"Both kinds\" says 2, but 4 kinds are registered"),
                countProblems("ARCHITECTURE.md", "It causes exactly these two kinds\nof external effect. The 3 kinds"
                        + " are registered. Both kinds are static.", 4));
    }

    @Test
    void aRightCountAndOtherKindsOfThingsAreNotReported() {
        assertEquals(List.of(), countProblems("README.md", "Four kinds of external effect; four registered kinds;"
                + " two kinds of error; three kinds of session; one kind whose effect is JSON.", 4));
    }

    @Test
    void aListThatLeavesOutARegisteredKindIsReported() {
        String text = "Postern makes " + START + " HTTP requests, SSH\ncommands and SQL statements " + END + ".";
        assertEquals(List.of("CONTRIBUTING.md: the list of kinds at offset 14 does not name \"upstream MCP tool\""),
                listProblems("CONTRIBUTING.md", text, List.of("HTTP request", "SSH command", "SQL statement", "upstream MCP tool"), true));
    }

    @Test
    void aListThatNamesEveryKindAcrossLineBreaksPasses() {
        String text = START + " an HTTP\nrequest, an SSH command, a SQL statement or an Upstream MCP tool call " + END;
        assertEquals(List.of(), listProblems("README.md", text,
                List.of("HTTP request", "SSH command", "SQL statement", "upstream MCP tool"), true));
    }

    @Test
    void aDocumentWithoutAMarkedListOrWithAnUnclosedOneIsReported() {
        List<String> names = List.of("HTTP request");
        assertEquals(List.of("README.md: no " + START + " ... " + END + " list of the kinds"),
                listProblems("README.md", "HTTP requests only", names, true));
        assertEquals(List.of("README.md: " + START + " at offset 0 has no " + END),
                listProblems("README.md", START + " HTTP requests", names, false));
    }

    @Test
    void aPomDescriptionThatLeavesOutAKindIsReported() {
        String pom = "<project><description>A strict MCP gateway over stdio for HTTP requests and SSH commands.</description>"
                + "<build><plugins><plugin><description>other</description></plugin></plugins></build></project>";
        assertEquals(List.of("pom.xml: its description does not name \"SQL statement\""),
                descriptionProblems("pom.xml", pom, List.of("HTTP request", "SSH command", "SQL statement")));
        assertEquals(List.of("pom.xml: no <description>"), descriptionProblems("pom.xml", "<project/>", List.of("x")));
    }

    /** Every count of kinds in {@code text} that differs from {@code registered}, one line each. */
    static List<String> countProblems(String document, String text, int registered) {
        List<String> problems = new ArrayList<>();
        Matcher m = COUNT.matcher(text);
        while (m.find()) {
            String number = m.group(1).toLowerCase(Locale.ROOT);
            int said = NUMBER_WORDS.containsKey(number) ? NUMBER_WORDS.get(number) : Integer.parseInt(number);
            if (said != registered) {
                problems.add(document + ": \"" + m.group().replaceAll("\\s+", " ") + "\" says " + said + ", but "
                        + registered + " kinds are registered");
            }
        }
        return problems;
    }

    /** Every marked list in {@code text} that leaves out a name, and a missing or unclosed mark. */
    static List<String> listProblems(String document, String text, List<String> names, boolean required) {
        List<String> problems = new ArrayList<>();
        int lists = 0;
        for (int start = text.indexOf(START); start >= 0; start = text.indexOf(START, start + START.length())) {
            int end = text.indexOf(END, start);
            int nextStart = text.indexOf(START, start + START.length());
            if (end < 0 || (nextStart >= 0 && nextStart < end)) {
                problems.add(document + ": " + START + " at offset " + start + " has no " + END);
                continue;
            }
            lists++;
            String list = normalized(text.substring(start + START.length(), end));
            for (String name : names) {
                if (!list.contains(normalized(name))) {
                    problems.add(document + ": the list of kinds at offset " + start + " does not name \"" + name + '"');
                }
            }
        }
        if (required && lists == 0 && problems.isEmpty()) {
            problems.add(document + ": no " + START + " ... " + END + " list of the kinds");
        }
        return problems;
    }

    /** The names a pom's own (first) description leaves out. */
    static List<String> descriptionProblems(String document, String pom, List<String> names) {
        Matcher m = DESCRIPTION.matcher(pom);
        if (!m.find()) {
            return List.of(document + ": no <description>");
        }
        String description = normalized(m.group(1));
        return names.stream().filter(name -> !description.contains(normalized(name)))
                .map(name -> document + ": its description does not name \"" + name + '"').toList();
    }

    private static String normalized(String text) {
        return text.replaceAll("\\s+", " ").toLowerCase(Locale.ROOT);
    }

    private static List<String> displayNames() {
        List<String> names = Gateway.kinds().all().stream().map(EffectKind::displayName).toList();
        assertTrue(names.size() >= 2, () -> "too few registered kinds: " + names);
        return names;
    }

    /** Every Markdown file, pom and package-info.java of the checkout, but what tools install or builds write. */
    private static List<Path> prose() throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(Checkout.root(), new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                String name = dir.equals(Checkout.root()) ? "" : dir.getFileName().toString();
                return name.equals("node_modules") || name.equals("target") || name.startsWith(".")
                        ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                String name = file.getFileName().toString();
                if (name.endsWith(".md") || name.equals("pom.xml") || name.equals("package-info.java")) {
                    found.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        found.sort(null);
        return found;
    }

    /** A document's prose: a Markdown file or package-info.java whole; of a pom, its descriptions. */
    private static String prose(Path file) {
        String text = text(file);
        if (!file.getFileName().toString().equals("pom.xml")) {
            return text;
        }
        List<String> descriptions = new ArrayList<>();
        for (Matcher m = DESCRIPTION.matcher(text); m.find(); ) {
            descriptions.add(m.group(1));
        }
        return String.join("\n", descriptions);
    }

    private static String text(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
