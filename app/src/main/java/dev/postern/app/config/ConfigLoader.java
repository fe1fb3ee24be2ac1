package dev.postern.app.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.postern.policy.RegistrationPoint;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.ForbiddenHeaders;
import dev.postern.policy.model.HttpAuth;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.Origin;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.RateLimit;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshCommandSpec;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.model.SqlStatementSpec;
import dev.postern.policy.model.TrustStore;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.protocol.json.JsonSyntaxError;
import dev.postern.protocol.json.StrictJson;
import dev.postern.protocol.tools.SchemaErrors;
import dev.postern.transport.Sha256;
import dev.postern.transport.StrictUtf8;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads a configuration file (DESIGN §4): strict JSON, validated against the schema that ships in
 * the jar, then every reference checked and every record built, so the kernel's own checks run
 * too. Relative paths resolve against the file's directory. Stateless; thread-safe.
 */
public final class ConfigLoader {
    public static final String SCHEMA_RESOURCE = "/dev/postern/app/postern-config.schema.json";
    static final int MAX_CONFIG_BYTES = 4 * 1024 * 1024;
    static final int DEFAULT_STRING_PARAM_LENGTH = ConfigDefaults.STRING_PARAM_MAX_LENGTH;

    private static final String CREDENTIAL_NAME_DEF = "#/$defs/credentialName";
    private static final String NOT_A_CREDENTIAL_NAME =
            "the name of a credential defined under /credentials, never the secret itself (the value is not shown)";

    private ConfigLoader() {
    }

    /** Loads and fully validates a config file: schema first, then the rules the schema cannot say. */
    public static GatewayConfig load(Path file) throws ConfigException {
        return load(file, Set.of()).config();
    }

    /**
     * What {@code trust-host} needs: the config loaded as {@link #load} does, except that the SSH
     * host named {@code hostName} may lack both {@code knownHosts} and {@code hostKeyFingerprint}
     * (the pin trust-host exists to produce). Such a host is left out of the policy and returned as
     * an endpoint only; every other host still needs its pin.
     */
    public static ForTrustHost loadForTrustHost(Path file, String hostName) throws ConfigException {
        Loaded loaded = load(file, Set.of(hostName));
        return new ForTrustHost(loaded.config(), loaded.unpinned().stream().filter(h -> h.name().equals(hostName)).findFirst());
    }

    /** A config loaded for trust-host, and the named host when it has no pin yet. */
    public record ForTrustHost(GatewayConfig config, Optional<UnpinnedHost> unpinned) {
    }

    /** An SSH host without a pin: only where it is, never usable by the gateway. */
    public record UnpinnedHost(String name, String address, int port, Duration timeout) {
    }

    private record Loaded(GatewayConfig config, List<UnpinnedHost> unpinned) {
    }

    private static Loaded load(Path file, Set<String> mayLackPin) throws ConfigException {
        Path abs = file.toAbsolutePath().normalize();
        byte[] bytes = read(abs);
        JsonNode root = parse(abs, bytes);
        validateSchema(abs, root);
        return build(abs, root, Sha256.of(bytes), mayLackPin);
    }

    /**
     * Loads a config file and builds it, leaving only its JSON Schema validation for later: what
     * {@code mcp-stdio} uses so that the schema's compilation and validation (most of start-up) run
     * after the {@code initialize} answer. The caller must run {@link Deferred#validation()} to the end
     * before anything uses the config for a tool (see {@code dev.postern.app.ConfigGate}). A file that
     * cannot be built is validated at once, so its error is the same as {@link #load}'s.
     */
    public static Deferred loadDeferringSchema(Path file) throws ConfigException {
        Path abs = file.toAbsolutePath().normalize();
        byte[] bytes = read(abs);
        JsonNode root = parse(abs, bytes);
        GatewayConfig config;
        try {
            config = build(abs, root, Sha256.of(bytes), Set.of()).config();
        } catch (ConfigException | RuntimeException e) {
            validateSchema(abs, root);
            throw e;
        }
        return new Deferred(config, () -> validateSchema(abs, root));
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
                    new ConfigException.Problem(SchemaErrors.pointer(e), namesACredential(e) ? NOT_A_CREDENTIAL_NAME : e.getMessage())));
            throw new ConfigException(abs, List.copyOf(problems));
        }
    }

    /** The compiled schema, built on first validation (not when the class loads). */
    private static final class SchemaHolder {
        static final Schema SCHEMA = loadSchema();
    }

    @RegistrationPoint("the kind's config section, read into its allowances")
    private static Loaded build(Path abs, JsonNode root, String fileSha256, Set<String> mayLackPin) throws ConfigException {
        refuseHomeRelativePaths(abs, root);
        Path dir = abs.getParent();
        Map<CredentialRef, CredentialSource> credentials = new LinkedHashMap<>();
        root.path("credentials").fields().forEachRemaining(e -> {
            JsonNode v = e.getValue();
            credentials.put(new CredentialRef(e.getKey()), v.has("env")
                    ? new CredentialSource.Env(v.get("env").textValue())
                    : new CredentialSource.File(dir.resolve(v.get("file").textValue()).normalize()));
        });
        List<HttpTarget> targets = new ArrayList<>();
        JsonNode ts = root.path("http").path("targets");
        for (int i = 0; i < ts.size(); i++) {
            targets.add(httpTarget(abs, dir, "/http/targets/" + i, ts.get(i), credentials));
        }
        List<SshHost> hosts = new ArrayList<>();
        List<UnpinnedHost> unpinned = new ArrayList<>();
        JsonNode hs = root.path("ssh").path("hosts");
        for (int i = 0; i < hs.size(); i++) {
            JsonNode h = hs.get(i);
            if (mayLackPin.contains(h.get("name").textValue()) && !h.has("knownHosts") && !h.has("hostKeyFingerprint")) {
                // No host is built (it has no pin), but its credentials and commands are checked as for any host.
                sshAuth(abs, "/ssh/hosts/" + i, h, credentials);
                commands(abs, "/ssh/hosts/" + i, h);
                unpinned.add(new UnpinnedHost(h.get("name").textValue(), h.get("address").textValue(), h.path("port").asInt(ConfigDefaults.SSH_PORT),
                        Duration.ofSeconds(h.path("timeoutSeconds").asLong(ConfigDefaults.SSH_TIMEOUT_SECONDS))));
            } else {
                hosts.add(sshHost(abs, dir, "/ssh/hosts/" + i, h, credentials));
            }
        }
        List<SqlDatabase> databases = new ArrayList<>();
        JsonNode ds = root.path("sql").path("databases");
        for (int i = 0; i < ds.size(); i++) {
            databases.add(sqlDatabase(abs, dir, "/sql/databases/" + i, ds.get(i), credentials));
        }
        List<UpstreamServer> upstreams = UpstreamSection.read(abs, dir, root, credentials);
        Policy policy;
        try {
            policy = Policy.of(targets, hosts, databases, upstreams);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(abs, "", e.getMessage());
        }
        JsonNode session = root.path("session");
        JsonNode journal = root.path("journal");
        Optional<CredentialRef> signingKey = journal.has("signingKey")
                ? Optional.of(credential(abs, "/journal/signingKey", journal.get("signingKey"), credentials))
                : Optional.empty();
        return new Loaded(new GatewayConfig(abs, policy,
                session.path("maxFrameBytes").asInt(GatewayConfig.DEFAULT_MAX_FRAME_BYTES),
                session.path("maxInFlight").asInt(GatewayConfig.DEFAULT_MAX_IN_FLIGHT),
                dir.resolve(journal.path("directory").textValue()).normalize(),
                journal.path("rotateBytes").asLong(GatewayConfig.DEFAULT_JOURNAL_ROTATE_BYTES),
                credentials,
                signingKey,
                journal.path("redactArguments").asBoolean(ConfigDefaults.JOURNAL_REDACT_ARGUMENTS),
                fileSha256,
                Duration.ofSeconds(session.path("approvalTimeoutSeconds").asInt(ConfigDefaults.APPROVAL_TIMEOUT_SECONDS)),
                TelemetrySection.read(abs, root, credentials)), unpinned);
    }

    /**
     * A path field that starts with {@code ~} is refused, every one listed: the JVM does not expand
     * it (it would name a directory called "~" beside the config), and the gateway may run as
     * another user whose home is not the operator's, so Postern does not guess.
     */
    private static void refuseHomeRelativePaths(Path file, JsonNode root) throws ConfigException {
        List<ConfigException.Problem> problems = new ArrayList<>();
        refuseHomeRelative(problems, "/journal/directory", root.path("journal").path("directory"));
        root.path("credentials").fields().forEachRemaining(e ->
                refuseHomeRelative(problems, "/credentials/" + e.getKey() + "/file", e.getValue().path("file")));
        JsonNode ts = root.path("http").path("targets");
        for (int i = 0; i < ts.size(); i++) {
            refuseHomeRelative(problems, "/http/targets/" + i + "/trustStore/file", ts.get(i).path("trustStore").path("file"));
        }
        JsonNode hs = root.path("ssh").path("hosts");
        for (int i = 0; i < hs.size(); i++) {
            refuseHomeRelative(problems, "/ssh/hosts/" + i + "/knownHosts", hs.get(i).path("knownHosts"));
        }
        JsonNode ds = root.path("sql").path("databases");
        for (int i = 0; i < ds.size(); i++) {
            refuseHomeRelative(problems, "/sql/databases/" + i + "/tls/caFile", ds.get(i).path("tls").path("caFile"));
        }
        JsonNode us = root.path("mcp").path("servers");
        for (int i = 0; i < us.size(); i++) {
            refuseHomeRelative(problems, UpstreamSection.POINTER + i + "/cwd", us.get(i).path("cwd"));
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

    private static HttpTarget httpTarget(Path file, Path dir, String at, JsonNode t,
                                         Map<CredentialRef, CredentialSource> credentials) throws ConfigException {
        Origin origin;
        try {
            origin = Origin.parseBaseUrl(t.get("baseUrl").textValue());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, at + "/baseUrl", e.getMessage());
        }
        Optional<HttpAuth> auth = Optional.empty();
        if (t.has("auth")) {
            JsonNode a = t.get("auth");
            CredentialRef ref = credential(file, at + "/auth/credential", a.get("credential"), credentials);
            HttpAuth.Scheme scheme = HttpAuth.Scheme.valueOf(a.get("scheme").textValue().toUpperCase(Locale.ROOT));
            Optional<String> header = Optional.ofNullable(a.get("header")).map(JsonNode::textValue);
            try {
                auth = Optional.of(new HttpAuth(ref, scheme, header));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(file, at + "/auth", e.getMessage());
            }
        }
        Optional<TrustStore> trustStore = Optional.empty();
        if (t.has("trustStore")) {
            trustStore = Optional.of(trustStore(file, dir, at + "/trustStore", t.get("trustStore"), credentials));
        }
        List<String> headers = strings(t.path("headers"));
        for (int i = 0; i < headers.size(); i++) {
            if (ForbiddenHeaders.contains(headers.get(i))) {
                // Listing one is an operator mistake: every call setting it would be denied anyway.
                throw new ConfigException(file, at + "/headers/" + i, "a header the agent may set, but "
                        + headers.get(i) + " is always set by Postern and never by the agent; remove it");
            }
        }
        List<String> methods = strings(t.get("methods"));
        List<String> confirm = strings(t.path("confirm"));
        for (int i = 0; i < confirm.size(); i++) {
            if (!methods.contains(confirm.get(i))) {
                throw new ConfigException(file, at + "/confirm/" + i, "one of the target's methods " + methods
                        + " (a method the target does not allow needs no approval), but " + confirm.get(i) + " is not");
            }
        }
        HttpTarget.OversizeResponse onOversize = HttpTarget.OversizeResponse.valueOf(
                t.path("onOversizeResponse").asText(ConfigDefaults.HTTP_ON_OVERSIZE_RESPONSE).toUpperCase(Locale.ROOT));
        try {
            return new HttpTarget(
                    t.get("name").textValue(),
                    origin,
                    new LinkedHashSet<>(strings(t.get("methods"))),
                    strings(t.get("pathPrefixes")),
                    new LinkedHashSet<>(headers),
                    auth,
                    Duration.ofMillis(t.path("timeoutMs").asLong(ConfigDefaults.HTTP_TIMEOUT_MS)),
                    t.path("maxResponseBytes").asLong(ConfigDefaults.HTTP_MAX_RESPONSE_BYTES),
                    t.path("allowPrivateAddresses").asBoolean(ConfigDefaults.HTTP_ALLOW_PRIVATE_ADDRESSES),
                    trustStore,
                    onOversize,
                    new LinkedHashSet<>(confirm),
                    rateLimit(t));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, at, e.getMessage());
        }
    }

    /**
     * A target's trust store: the file must exist now (so check-config catches a wrong path), and a
     * password names a credential (see {@link #credential}).
     */
    private static TrustStore trustStore(Path file, Path dir, String at, JsonNode s,
                                         Map<CredentialRef, CredentialSource> credentials) throws ConfigException {
        Path store = dir.resolve(s.get("file").textValue()).normalize();
        if (!Files.isRegularFile(store) || !Files.isReadable(store)) {
            throw new ConfigException(file, at + "/file", "a readable trust store file, but " + store + " is not one");
        }
        TrustStore.Type type = TrustStore.Type.valueOf(s.path("type").asText(ConfigDefaults.TRUST_STORE_TYPE));
        Optional<CredentialRef> password = s.has("password")
                ? Optional.of(credential(file, at + "/password", s.get("password"), credentials))
                : Optional.empty();
        try {
            return new TrustStore(store, type, password);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, at, e.getMessage());
        }
    }

    private static SshHost sshHost(Path file, Path dir, String at, JsonNode h, Map<CredentialRef, CredentialSource> credentials)
            throws ConfigException {
        SshAuth auth = sshAuth(file, at, h, credentials);
        List<SshCommandSpec> commands = commands(file, at, h);
        try {
            return new SshHost(
                    h.get("name").textValue(),
                    h.get("address").textValue(),
                    h.path("port").asInt(ConfigDefaults.SSH_PORT),
                    h.get("user").textValue(),
                    auth,
                    Optional.ofNullable(h.get("knownHosts")).map(n -> dir.resolve(n.textValue()).normalize()),
                    Optional.ofNullable(h.get("hostKeyFingerprint")).map(JsonNode::textValue),
                    Duration.ofSeconds(h.path("timeoutSeconds").asLong(ConfigDefaults.SSH_TIMEOUT_SECONDS)),
                    h.path("maxOutputBytes").asLong(ConfigDefaults.SSH_MAX_OUTPUT_BYTES),
                    commands,
                    rateLimit(h));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, at, e.getMessage());
        }
    }

    /** An allowance's {@code rateLimit}, if it has one; the schema has checked its bounds. */
    static Optional<RateLimit> rateLimit(JsonNode allowance) {
        JsonNode r = allowance.get("rateLimit");
        return r == null ? Optional.empty() : Optional.of(RateLimit.perSeconds(r.get("calls").asInt(), r.get("perSeconds").asLong()));
    }

    private static SshAuth sshAuth(Path file, String at, JsonNode h, Map<CredentialRef, CredentialSource> credentials)
            throws ConfigException {
        SshAuth auth;
        if (h.has("identity") == h.has("password")) {
            throw new ConfigException(file, at, "exactly one of \"identity\" or \"password\"");
        }
        if (h.has("identity")) {
            Optional<CredentialRef> passphrase = h.has("passphrase")
                    ? Optional.of(credential(file, at + "/passphrase", h.get("passphrase"), credentials))
                    : Optional.empty();
            auth = new SshAuth.Key(credential(file, at + "/identity", h.get("identity"), credentials), passphrase);
        } else {
            if (h.has("passphrase")) {
                throw new ConfigException(file, at + "/passphrase", "no passphrase with password authentication");
            }
            auth = new SshAuth.Password(credential(file, at + "/password", h.get("password"), credentials));
        }
        return auth;
    }

    private static List<SshCommandSpec> commands(Path file, String at, JsonNode h) throws ConfigException {
        List<SshCommandSpec> commands = new ArrayList<>();
        JsonNode cs = h.get("commands");
        for (int i = 0; i < cs.size(); i++) {
            commands.add(command(file, at + "/commands/" + i, cs.get(i)));
        }
        return commands;
    }

    private static SshCommandSpec command(Path file, String at, JsonNode c) throws ConfigException {
        Map<String, ParamSpec> params = new LinkedHashMap<>();
        var it = c.path("params").fields();
        while (it.hasNext()) {
            var e = it.next();
            JsonNode p = e.getValue();
            String pat = at + "/params/" + e.getKey();
            try {
                if (p.get("type").textValue().equals("integer")) {
                    params.put(e.getKey(), new ParamSpec.IntegerParam(p.get("minimum").asLong(), p.get("maximum").asLong()));
                } else {
                    params.put(e.getKey(), stringParam(file, pat, p));
                }
            } catch (IllegalArgumentException ex) {
                throw new ConfigException(file, pat, ex.getMessage());
            }
        }
        try {
            return new SshCommandSpec(c.get("name").textValue(), strings(c.get("argv")), params,
                    c.path("confirm").asBoolean(ConfigDefaults.SSH_COMMAND_CONFIRM));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, at, e.getMessage());
        }
    }

    private static SqlDatabase sqlDatabase(Path file, Path dir, String at, JsonNode d,
                                           Map<CredentialRef, CredentialSource> credentials) throws ConfigException {
        CredentialRef password = credential(file, at + "/password", d.get("password"), credentials);
        SqlDatabase.Tls tls = SqlDatabase.Tls.verifyFull();
        if (d.has("tls")) {
            JsonNode t = d.get("tls");
            SqlDatabase.TlsMode mode = t.get("mode").textValue().equals("disable")
                    ? SqlDatabase.TlsMode.DISABLE : SqlDatabase.TlsMode.VERIFY_FULL;
            Optional<Path> ca = Optional.ofNullable(t.get("caFile")).map(n -> dir.resolve(n.textValue()).normalize());
            if (ca.isPresent() && (!Files.isRegularFile(ca.get()) || !Files.isReadable(ca.get()))) {
                throw new ConfigException(file, at + "/tls/caFile", "a readable CA file, but " + ca.get() + " is not one");
            }
            try {
                tls = new SqlDatabase.Tls(mode, ca);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(file, at + "/tls", e.getMessage());
            }
        }
        List<SqlStatementSpec> statements = new ArrayList<>();
        JsonNode ss = d.get("statements");
        for (int i = 0; i < ss.size(); i++) {
            statements.add(sqlStatement(file, at + "/statements/" + i, ss.get(i)));
        }
        try {
            return new SqlDatabase(
                    d.get("name").textValue(),
                    d.get("host").textValue(),
                    d.path("port").asInt(ConfigDefaults.SQL_PORT),
                    d.get("database").textValue(),
                    d.get("user").textValue(),
                    password,
                    tls,
                    d.path("allowPrivateAddresses").asBoolean(ConfigDefaults.SQL_ALLOW_PRIVATE_ADDRESSES),
                    Duration.ofMillis(d.path("timeoutMs").asLong(ConfigDefaults.SQL_TIMEOUT_MS)),
                    d.path("maxRows").asInt(ConfigDefaults.SQL_MAX_ROWS),
                    d.path("maxResponseBytes").asLong(ConfigDefaults.SQL_MAX_RESPONSE_BYTES),
                    statements,
                    rateLimit(d));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, at, e.getMessage());
        }
    }

    /** A statement: its SQL is lexed by the kernel here, so one with two statements or unmatched placeholders fails at load. */
    private static SqlStatementSpec sqlStatement(Path file, String at, JsonNode s) throws ConfigException {
        Map<String, ParamSpec> params = new LinkedHashMap<>();
        var it = s.path("params").fields();
        while (it.hasNext()) {
            var e = it.next();
            JsonNode p = e.getValue();
            String pat = at + "/params/" + e.getKey();
            try {
                switch (p.get("type").textValue()) {
                    case "integer" -> params.put(e.getKey(), new ParamSpec.IntegerParam(
                            p.has("minimum") ? p.get("minimum").longValue() : Long.MIN_VALUE,
                            p.has("maximum") ? p.get("maximum").longValue() : Long.MAX_VALUE));
                    case "number" -> params.put(e.getKey(), new ParamSpec.NumberParam(
                            Optional.ofNullable(p.get("minimum")).map(JsonNode::decimalValue),
                            Optional.ofNullable(p.get("maximum")).map(JsonNode::decimalValue)));
                    case "boolean" -> params.put(e.getKey(), new ParamSpec.BooleanParam());
                    default -> params.put(e.getKey(), stringParam(file, pat, p));
                }
            } catch (IllegalArgumentException ex) {
                throw new ConfigException(file, pat, ex.getMessage());
            }
        }
        try {
            return new SqlStatementSpec(s.get("name").textValue(), s.get("sql").textValue(), params,
                    s.path("readOnly").asBoolean(ConfigDefaults.SQL_READ_ONLY),
                    s.path("confirm").asBoolean(ConfigDefaults.SQL_STATEMENT_CONFIRM));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(file, at, e.getMessage());
        }
    }

    /** A string param of an SSH command or SQL statement: an optional pattern (which must compile) and enum, a length bound. */
    private static ParamSpec.StringParam stringParam(Path file, String at, JsonNode p) throws ConfigException {
        Optional<Pattern> pattern = Optional.empty();
        if (p.has("pattern")) {
            try {
                pattern = Optional.of(Pattern.compile(p.get("pattern").textValue()));
            } catch (PatternSyntaxException ex) {
                throw new ConfigException(file, at + "/pattern", "a valid regular expression (" + ex.getDescription() + ")");
            }
        }
        Optional<List<String>> allowed = p.has("enum") ? Optional.of(strings(p.get("enum"))) : Optional.empty();
        return new ParamSpec.StringParam(pattern, allowed, p.path("maxLength").asInt(DEFAULT_STRING_PARAM_LENGTH));
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
            throw new ConfigException(file, at, NOT_A_CREDENTIAL_NAME);
        }
        return ref.get();
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.textValue()));
        return out;
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
