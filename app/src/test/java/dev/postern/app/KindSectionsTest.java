package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.config.ConfigException;
import dev.postern.app.config.ConfigLoader;
import dev.postern.app.config.GatewayConfig;
import dev.postern.app.config.HttpSection;
import dev.postern.app.config.KindSection;
import dev.postern.app.config.SqlSection;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.SqlDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each registered kind reads its own config section ({@link KindSection}, named in its line in
 * {@link Gateway#KINDS}): its sample config (a test resource named for its member, e.g.
 * {@code samples/http.json}) loads into exactly one allowance of the kind; the shipped schema holds the
 * section's fragment as the member's schema, and every top-level member of the shipped schema has exactly
 * one reader, the gateway or one registered section. A kind registered without its sample, its fragment in
 * the shipped schema or a path field of its entries fails here. Run with
 * {@code -Dpostern.writeConfigSchema=true} to rewrite the shipped schema's kind members from the fragments.
 */
class KindSectionsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SAMPLES = "/dev/postern/app/config/samples/";
    private static final Path SHIPPED_SOURCE = Path.of("src/main/resources" + ConfigLoader.SCHEMA_RESOURCE);

    static Stream<Registration<?>> registrations() {
        return Gateway.KINDS.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("registrations")
    void everyRegisteredKindReadsItsSampleIntoOneAllowanceOfItsKind(Registration<?> r) throws Exception {
        GatewayConfig config = Gateway.configLoader().load(sample(r));

        List<Allowance> all = config.policy().allowances();
        assertEquals(1, all.size(), () -> r.kind().toolName() + "'s sample should allow exactly one thing: " + all);
        assertInstanceOf(r.kind().allowanceType(), all.get(0), r.kind().toolName());
        assertEquals(all, List.copyOf(config.policy().allowances(r.kind().allowanceType())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("registrations")
    void aLoaderWithoutAKindsSectionReadsNothingOfItsSample(Registration<?> r) throws Exception {
        // What a forgotten section would do: the schema accepts the member, and the policy allows nothing of it.
        List<KindSection<?>> others = Gateway.configLoader().sections().stream().filter(s -> s != r.section()).toList();

        GatewayConfig config = ConfigLoader.of(others).load(sample(r));

        assertEquals(List.of(), config.policy().allowances(), r.kind().toolName());
    }

    @Test
    void theLoaderReadsTheRegisteredSectionsInRegistrationOrder() {
        assertEquals(Gateway.KINDS.stream().map(Registration::section).toList(), Gateway.configLoader().sections());
    }

    @Test
    void everyTopLevelMemberOfTheShippedSchemaHasExactlyOneReader() throws IOException {
        List<String> readers = new ArrayList<>(ConfigLoader.GATEWAY_MEMBERS);
        Gateway.KINDS.forEach(r -> readers.add(r.section().member()));

        List<String> members = new ArrayList<>();
        shipped().get("properties").fieldNames().forEachRemaining(members::add);

        // The gateway's own members first, then one per registered kind in registration order (the writer below relies on it).
        assertEquals(readers, members, "the shipped schema's top-level members, against the gateway's and the registered sections'");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("registrations")
    void theShippedSchemaHoldsEachRegisteredSectionsFragmentAsItsMembersSchema(Registration<?> r) throws IOException {
        assertEquals(fragment(r.section()), shipped().get("properties").get(r.section().member()),
                () -> "the shipped schema's \"" + r.section().member() + "\" differs from " + r.section().schemaFragment()
                        + "; rerun this test with -Dpostern.writeConfigSchema=true and review the diff");
    }

    @Test
    void theShippedSchemaIsTheGatewaysOwnMembersFollowedByTheFragmentsAsWritten() throws IOException {
        String text = Files.readString(SHIPPED_SOURCE, StandardCharsets.UTF_8);
        String composed = composed(text);
        if (Boolean.getBoolean("postern.writeConfigSchema")) {
            Files.writeString(SHIPPED_SOURCE, composed, StandardCharsets.UTF_8);
            text = composed;
        }
        assertEquals(composed, text, "the shipped schema is not its fragments as written; rerun this test with"
                + " -Dpostern.writeConfigSchema=true and review the diff");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("registrations")
    void eachPathFieldIsAStringFieldOfTheKindsEntriesAndItsSampleSetsIt(Registration<?> r) throws Exception {
        KindSection<?> section = r.section();
        String array = section.pointer().substring(section.member().length() + 2);
        JsonNode entry = JSON.readTree(sample(r).toFile()).at(section.pointer() + "/0");
        for (String field : section.pathFields()) {
            JsonNode property = fragment(section).at("/properties/" + array + "/items" + field.replace("/", "/properties/"));
            assertEquals("string", property.path("type").asText(), () -> section.pointer() + " entries have no string field " + field);
            assertTrue(entry.at(field).isTextual(), () -> r.kind().toolName() + "'s sample sets no " + field + ", so no test proves it");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("registrations")
    void aHomeRelativePathInAnyOfAKindsPathFieldsIsRefusedAtItsPointer(Registration<?> r, @TempDir Path dir) throws Exception {
        KindSection<?> section = r.section();
        for (String field : section.pathFields()) {
            ObjectNode root = (ObjectNode) JSON.readTree(sample(r).toFile());
            int slash = field.lastIndexOf('/');
            ((ObjectNode) root.at(section.pointer() + "/0" + field.substring(0, slash))).put(field.substring(slash + 1), "~/somewhere");
            Path file = dir.resolve(section.member() + ".json");
            Files.writeString(file, root.toString(), StandardCharsets.UTF_8);

            ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));

            assertEquals(section.pointer() + "/0" + field, e.pointer());
            assertTrue(e.getMessage().contains("\"~\" is not expanded"), e.getMessage());
        }
    }

    @Test
    void aLoaderRefusesTwoReadersOfOneMember() {
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> ConfigLoader.of(List.of(new HttpSection(), new HttpSection())));
        assertEquals("the config member \"http\" of /http/targets already has a reader (another kind)", twice.getMessage());

        IllegalArgumentException gateways = assertThrows(IllegalArgumentException.class,
                () -> ConfigLoader.of(List.of(section("/journal/databases", SqlDatabase.class))));
        assertEquals("the config member \"journal\" of /journal/databases already has a reader (the gateway)", gateways.getMessage());

        IllegalArgumentException oneType = assertThrows(IllegalArgumentException.class,
                () -> ConfigLoader.of(List.of(new SqlSection(), section("/postgres/databases", SqlDatabase.class))));
        assertEquals("two sections read SqlDatabase allowances", oneType.getMessage());
    }

    /** A section that owns {@code pointer} and reads nothing: for the loader's own checks. */
    private static <A extends Allowance> KindSection<A> section(String pointer, Class<A> type) {
        return new KindSection<>() {
            @Override
            public String pointer() {
                return pointer;
            }

            @Override
            public Class<A> allowanceType() {
                return type;
            }

            @Override
            public String schemaFragment() {
                return "/nowhere.schema.json";
            }

            @Override
            public List<String> pathFields() {
                return List.of();
            }

            @Override
            public A entry(Reading reading, String at, JsonNode entry) {
                throw new AssertionError("never read");
            }
        };
    }

    private static Path sample(Registration<?> r) throws URISyntaxException {
        URL url = KindSectionsTest.class.getResource(SAMPLES + r.section().member() + ".json");
        assertNotNull(url, () -> r.kind().toolName() + " has no config sample: add " + SAMPLES + r.section().member()
                + ".json (in app's test resources) holding one allowance of the kind");
        return Path.of(url.toURI());
    }

    private static JsonNode fragment(KindSection<?> section) throws IOException {
        try (InputStream in = KindSectionsTest.class.getResourceAsStream(section.schemaFragment())) {
            assertNotNull(in, () -> section.pointer() + "'s schema fragment " + section.schemaFragment() + " is not on the class path");
            return JSON.readTree(in);
        }
    }

    private static JsonNode shipped() throws IOException {
        try (InputStream in = KindSectionsTest.class.getResourceAsStream(ConfigLoader.SCHEMA_RESOURCE)) {
            return JSON.readTree(in);
        }
    }

    /**
     * The shipped schema's text with its kind members, which follow the gateway's own at the end of
     * {@code properties}, replaced by the registered sections' fragments in registration order (indented
     * as the file is); everything else is kept byte for byte.
     */
    private static String composed(String text) throws IOException {
        List<String> lines = text.lines().toList();
        int start = -1;
        int end = -1;
        for (int i = lines.indexOf("  \"properties\": {") + 1; i > 0 && i < lines.size(); i++) {
            String line = lines.get(i);
            if (start < 0 && line.matches(" {4}\"[^\"]+\": \\{")
                    && !ConfigLoader.GATEWAY_MEMBERS.contains(line.substring(5, line.indexOf('"', 5)))) {
                start = i;
            }
            if (start >= 0 && line.equals("  }")) {
                end = i;
                break;
            }
        }
        assertTrue(start > 0 && end > start, "no kind members found at the end of the shipped schema's properties");
        List<String> out = new ArrayList<>(lines.subList(0, start));
        if (!out.get(out.size() - 1).endsWith(",")) {
            out.set(out.size() - 1, out.get(out.size() - 1) + ",");
        }
        List<Registration<?>> kinds = Gateway.KINDS;
        for (int k = 0; k < kinds.size(); k++) {
            KindSection<?> section = kinds.get(k).section();
            List<String> fragment;
            try (InputStream in = KindSectionsTest.class.getResourceAsStream(section.schemaFragment())) {
                assertNotNull(in, section.schemaFragment());
                fragment = new String(in.readAllBytes(), StandardCharsets.UTF_8).stripTrailing().lines().toList();
            }
            out.add("    \"" + section.member() + "\": " + fragment.get(0));
            fragment.subList(1, fragment.size() - 1).forEach(l -> out.add(l.isEmpty() ? l : "    " + l));
            out.add("    " + fragment.get(fragment.size() - 1) + (k < kinds.size() - 1 ? "," : ""));
        }
        out.addAll(lines.subList(end, lines.size()));
        return String.join("\n", out) + "\n";
    }
}
