package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.Policy;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import dev.postern.protocol.tools.SchemaErrors;
import dev.postern.transport.Sha256;
import dev.postern.transport.StrictUtf8;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a configuration file (DESIGN §4): strict JSON, validated against the schema that ships in
 * the jar, then every reference checked and every record built, so the kernel's own checks run
 * too. Relative paths resolve against the file's directory. The gateway reads its own members
 * ({@link #GATEWAY_MEMBERS}); each kind's member is read by that kind's {@link KindSection}, the
 * sections the registration lines name, in registration order. Immutable; thread-safe.
 */
public final class ConfigLoader {
    public static final String SCHEMA_RESOURCE = "/dev/postern/app/postern-config.schema.json";
    /** The top-level members of the config file the gateway reads itself; every other member is one kind's section. */
    public static final List<String> GATEWAY_MEMBERS = List.of("$schema", "session", "journal", "credentials", "telemetry");
    static final int MAX_CONFIG_BYTES = 4 * 1024 * 1024;

    private static final String CREDENTIAL_NAME_DEF = "#/$defs/credentialName";
    private static final String NOT_A_CREDENTIAL_NAME =
            "the name of a credential defined under /credentials, never the secret itself (the value is not shown)";

    private final List<KindSection<?>> sections;

    private ConfigLoader(List<KindSection<?>> sections) {
        this.sections = List.copyOf(sections);
        Set<String> members = new HashSet<>(GATEWAY_MEMBERS);
        Set<Class<?>> types = new HashSet<>();
        for (KindSection<?> section : this.sections) {
            if (!members.add(section.member())) {
                throw new IllegalArgumentException("the config member \"" + section.member() + "\" of " + section.pointer()
                        + " already has a reader (" + (GATEWAY_MEMBERS.contains(section.member()) ? "the gateway" : "another kind") + ")");
            }
            if (!types.add(section.allowanceType())) {
                throw new IllegalArgumentException("two sections read " + section.allowanceType().getSimpleName() + " allowances");
            }
        }
    }

    /** A loader reading each kind's member with its section, in this order; two sections may not share a member or an allowance type. */
    public static ConfigLoader of(List<? extends KindSection<?>> sections) {
        return new ConfigLoader(List.copyOf(Objects.requireNonNull(sections, "sections")));
    }

    /** The kinds' sections, in the order their allowances enter the policy. */
    public List<KindSection<?>> sections() {
        return sections;
    }

    /** Loads and fully validates a config file: schema first, then the rules the schema cannot say. */
    public GatewayConfig load(Path file) throws ConfigException {
        return parsed(file).validated().build(sections);
    }

    /**
     * What {@code trust-host} needs: the config loaded as {@link #load} does, except that the SSH
     * host named {@code hostName} may lack both {@code knownHosts} and {@code hostKeyFingerprint}
     * (the pin trust-host exists to produce). Such a host is left out of the policy and returned as
     * an endpoint only; every other host still needs its pin.
     */
    public ForTrustHost loadForTrustHost(Path file, String hostName) throws ConfigException {
        SshSection lenient = SshSection.lettingUnpinned(hostName);
        List<KindSection<?>> replaced = sections.stream()
                .<KindSection<?>>map(s -> s.pointer().equals(lenient.pointer()) ? lenient : s).toList();
        if (replaced.equals(sections)) {
            throw new IllegalStateException("no registered section reads " + lenient.pointer());
        }
        Parsed parsed = parsed(file).validated();
        return new ForTrustHost(parsed.build(replaced), lenient.unpinned(parsed.root()));
    }

    /** A config loaded for trust-host, and the named host when it has no pin yet. */
    public record ForTrustHost(GatewayConfig config, Optional<UnpinnedHost> unpinned) {
    }

    /** An SSH host without a pin: only where it is, never usable by the gateway. */
    public record UnpinnedHost(String name, String address, int port, Duration timeout) {
    }

    /** A file read and parsed, not yet built: its absolute path, its tree and the SHA-256 of its bytes. */
    private record Parsed(Path abs, JsonNode root, String sha256) {
        Parsed validated() throws ConfigException {
            validateSchema(abs, root);
            return this;
        }

        GatewayConfig build(List<KindSection<?>> sections) throws ConfigException {
            return ConfigLoader.build(abs, root, sha256, sections);
        }
    }

    private static Parsed parsed(Path file) throws ConfigException {
        Path abs = file.toAbsolutePath().normalize();
        byte[] bytes = read(abs);
        return new Parsed(abs, parse(abs, bytes), Sha256.of(bytes));
    }

    /**
     * Loads a config file and builds it, leaving only its JSON Schema validation for later: what
     * {@code mcp-stdio} uses so that the schema's compilation and validation (most of start-up) run
     * after the {@code initialize} answer. The caller must run {@link Deferred#validation()} to the end
     * before anything uses the config for a tool (see {@code dev.postern.app.ConfigGate}). A file that
     * cannot be built is validated at once, so its error is the same as {@link #load}'s.
     */
    public Deferred loadDeferringSchema(Path file) throws ConfigException {
        Parsed parsed = parsed(file);
        GatewayConfig config;
        try {
            config = parsed.build(sections);
        } catch (ConfigException | RuntimeException e) {
            parsed.validated();
            throw e;
        }
        return new Deferred(config, () -> validateSchema(parsed.abs(), parsed.root()));
    }

    /** A built config whose JSON Schema validation is still to run; the tree it checks is not changed after building. */
    public record Deferred(GatewayConfig config, Validation validation) {
        public Deferred {
            java.util.Objects.requireNonNull(config, "config");
            java.util.Objects.requireNonNull(validation, "validation");
        }
    }

    /** A validation still to run: returns when the config is valid, throws what {@link #load} would have thrown. */
    @FunctionalInterface
    public interface Validation {
        void run() throws ConfigException;
    }

    private static void validateSchema(Path abs, JsonNode root) throws ConfigException {
        List<Error> errors = SchemaHolder.SCHEMA.validate(root);
        if (!errors.isEmpty()) {
            LinkedHashSet<ConfigException.Problem> problems = new LinkedHashSet<>();
            errors.stream().sorted(Comparator.comparing(SchemaErrors::pointer)).forEach(e -> problems.add(
                    new ConfigException.Problem(SchemaErrors.pointer(e), namesACredential(e) ? NOT_A_CREDENTIAL_NAME
                            : e.getMessage() + didYouMean(e))));
            throw new ConfigException(abs, List.copyOf(problems));
        }
    }

    /** The compiled schema, built on first validation (not when the class loads), and its text as a tree. */
    private static final class SchemaHolder {
        static final Schema SCHEMA = loadSchema();
        static final JsonNode TREE = loadTree();
    }

    /**
     * For a member the schema does not allow: {@code "; did you mean 'NAME'?"} when one of the members
     * allowed at that place (the {@code properties} of the schema object whose {@code additionalProperties}
     * refused it) is at most two edits away; else nothing.
     */
    private static String didYouMean(Error e) {
        if (!"additionalProperties".equals(e.getKeyword()) || e.getProperty() == null) {
            return "";
        }
        String location = String.valueOf(e.getSchemaLocation());
        int hash = location.indexOf('#');
        String fragment = hash < 0 ? "" : location.substring(hash + 1);
        if (!fragment.endsWith("/additionalProperties")) {
            return "";
        }
        JsonNode object = SchemaHolder.TREE.at(fragment.substring(0, fragment.length() - "/additionalProperties".length()));
        List<String> allowed = new ArrayList<>();
        object.path("properties").fieldNames().forEachRemaining(allowed::add);
        return Suggestions.closest(e.getProperty(), allowed).map(name -> "; did you mean '" + name + "'?").orElse("");
    }

    private static JsonNode loadTree() {
        try (InputStream in = ConfigLoader.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the config schema is missing from the jar: " + SCHEMA_RESOURCE);
            }
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the config schema", e);
        }
    }

    private static GatewayConfig build(Path abs, JsonNode root, String fileSha256, List<KindSection<?>> sections)
            throws ConfigException {
        refuseHomeRelativePaths(abs, root, sections);
        Path dir = abs.getParent();
        Map<CredentialRef, CredentialSource> credentials = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : root.path("credentials").properties()) {
            credentials.put(new CredentialRef(e.getKey()), credentialSource(abs, "/credentials/" + e.getKey(), e.getValue()));
        }
        KindSection.Reading reading = new KindSection.Reading(abs, dir, credentials);
        List<Allowance> allowances = new ArrayList<>();
        Map<String, ApprovalChannel> channels = new LinkedHashMap<>();
        for (KindSection<?> section : sections) {
            allowances.addAll(section.read(reading, root.at(section.pointer())));
            channels.putAll(section.approvalChannels(root.at(section.pointer())));
        }
        Policy policy;
        try {
            policy = new Policy(allowances);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(abs, "", e.getMessage());
        }
        JsonNode session = root.path("session");
        JsonNode journal = root.path("journal");
        Optional<CredentialRef> signingKey = journal.has("signingKey")
                ? Optional.of(credential(abs, "/journal/signingKey", journal.get("signingKey"), credentials))
                : Optional.empty();
        return new GatewayConfig(abs, policy,
                session.path("maxFrameBytes").asInt(GatewayConfig.DEFAULT_MAX_FRAME_BYTES),
                session.path("maxInFlight").asInt(GatewayConfig.DEFAULT_MAX_IN_FLIGHT),
                dir.resolve(journal.path("directory").textValue()).normalize(),
                journal.path("rotateBytes").asLong(GatewayConfig.DEFAULT_JOURNAL_ROTATE_BYTES),
                credentials,
                signingKey,
                journal.path("redactArguments").asBoolean(ConfigDefaults.JOURNAL_REDACT_ARGUMENTS),
                fileSha256,
                Duration.ofSeconds(session.path("approvalTimeoutSeconds").asInt(ConfigDefaults.APPROVAL_TIMEOUT_SECONDS)),
                TelemetrySection.read(abs, root, credentials),
                new ApprovalChannels(ApprovalChannel.of(session.path("approval").asText(ConfigDefaults.APPROVAL)).orElseThrow(),
                        channels));
    }

    /** One entry of {@code credentials}, valid against the schema: a file's path resolved against the config's directory. */
    private static CredentialSource credentialSource(Path abs, String at, JsonNode v) throws ConfigException {
        if (v.has("env")) {
            return new CredentialSource.Env(v.get("env").textValue());
        }
        if (v.has("file")) {
            return new CredentialSource.File(abs.getParent().resolve(v.get("file").textValue()).normalize());
        }
        List<String> argv = new ArrayList<>();
        v.get("command").forEach(a -> argv.add(a.textValue()));
        try {
            return new CredentialSource.Command(argv,
                    Duration.ofMillis(v.path("timeoutMs").asLong(ConfigDefaults.CREDENTIAL_COMMAND_TIMEOUT_MS)),
                    Duration.ofSeconds(v.path("cacheSeconds").asLong(ConfigDefaults.CREDENTIAL_COMMAND_CACHE_SECONDS)));
        } catch (IllegalArgumentException e) {
            // The schema holds the numbers to their ranges: what is left is the program's name, or a NUL anywhere.
            boolean program = argv.get(0).isEmpty() || argv.get(0).indexOf('\0') >= 0 || !argv.get(0).startsWith("/") && argv.get(0).contains("/");
            throw new ConfigException(abs, at + "/command" + (program ? "/0" : ""), e.getMessage());
        }
    }

    /**
     * A path field that starts with {@code ~} is refused, every one listed: the JVM does not expand
     * it (it would name a directory called "~" beside the config), and the gateway may run as
     * another user whose home is not the operator's, so Postern does not guess. The gateway's own
     * fields first, then each section's {@link KindSection#pathFields()}, entry by entry.
     */
    private static void refuseHomeRelativePaths(Path file, JsonNode root, List<KindSection<?>> sections) throws ConfigException {
        List<ConfigException.Problem> problems = new ArrayList<>();
        refuseHomeRelative(problems, "/journal/directory", root.path("journal").path("directory"));
        root.path("credentials").fields().forEachRemaining(e ->
                refuseHomeRelative(problems, "/credentials/" + e.getKey() + "/file", e.getValue().path("file")));
        for (KindSection<?> section : sections) {
            JsonNode entries = root.at(section.pointer());
            for (int i = 0; i < entries.size(); i++) {
                for (String field : section.pathFields()) {
                    refuseHomeRelative(problems, section.pointer() + "/" + i + field, entries.get(i).at(field));
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(file, problems);
        }
    }

    private static void refuseHomeRelative(List<ConfigException.Problem> problems, String pointer, JsonNode value) {
        if (value.isTextual() && value.textValue().startsWith("~")) {
            problems.add(new ConfigException.Problem(pointer, "an absolute path or one relative to the config file's directory;"
                    + " \"~\" is not expanded (the gateway may run as another user), write the home directory out"));
        }
    }

    private static byte[] read(Path file) throws ConfigException {
        try {
            if (Files.size(file) > MAX_CONFIG_BYTES) {
                throw new ConfigException(file, null, "a config file of at most " + MAX_CONFIG_BYTES + " bytes");
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(file, null, "a readable file (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }

    private static JsonNode parse(Path file, byte[] bytes) throws ConfigException {
        String text;
        try {
            text = StrictUtf8.decode(bytes);
        } catch (CharacterCodingException e) {
            throw new ConfigException(file, null, "UTF-8 text");
        }
        try {
            return new StrictJson(MAX_CONFIG_BYTES).parse(text);
        } catch (JsonSyntaxError e) {
            String where = e.line() < 1 ? "" : "line " + e.line() + (e.column() < 1 ? "" : ", column " + e.column()) + ": ";
            throw new ConfigException(file, null, where + "one strict JSON object (" + withoutQuotedText(e.getMessage()) + ")");
        }
    }

    /**
     * A syntax error's words without the text it quotes: the parser quotes the offending token, which
     * may be a secret pasted without its quotes where a credential name belongs.
     */
    static String withoutQuotedText(String message) {
        int quote = message.indexOf('\'');
        if (quote < 0) {
            return message;
        }
        String before = message.substring(0, quote).replaceAll("[\\s(]+$", "");
        return before + " (the offending text is not shown)";
    }

    /**
     * The one way a field that names a credential is read (the schema's {@code credentialName}):
     * an operator may have typed the secret itself there, so no error about it shows its value.
     */
    static CredentialRef credential(Path file, String at, JsonNode field, Map<CredentialRef, CredentialSource> credentials)
            throws ConfigException {
        Optional<CredentialRef> ref = Optional.empty();
        try {
            ref = Optional.of(new CredentialRef(field.textValue()));
        } catch (IllegalArgumentException e) {
            // Not even a credential name; CredentialRef's own message would quote it.
        }
        if (ref.isEmpty() || !credentials.containsKey(ref.get())) {
            throw new ConfigException(file, at, NOT_A_CREDENTIAL_NAME + undefined(ref, credentials));
        }
        return ref.get();
    }

    /**
     * What an undefined credential name is told beside {@link #NOT_A_CREDENTIAL_NAME}: the names that are
     * defined, and the one it is closest to; never the value typed (it may be the secret itself).
     */
    private static String undefined(Optional<CredentialRef> ref, Map<CredentialRef, CredentialSource> credentials) {
        List<String> defined = credentials.keySet().stream().map(CredentialRef::name).sorted().toList();
        if (defined.isEmpty()) {
            return "; no credential is defined";
        }
        String suggestion = ref.flatMap(r -> Suggestions.closest(r.name(), defined)).map(n -> "; did you mean '" + n + "'?").orElse("");
        return "; defined: " + String.join(", ", defined) + suggestion;
    }

    /** Whether a schema error is about a field that names a credential: its message might quote the value. */
    private static boolean namesACredential(Error e) {
        return String.valueOf(e.getSchemaLocation()).contains(CREDENTIAL_NAME_DEF);
    }

    private static Schema loadSchema() {
        try (InputStream in = ConfigLoader.class.getResourceAsStream(SCHEMA_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the config schema is missing from the jar: " + SCHEMA_RESOURCE);
            }
            return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
