package dev.postern.app.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.app.Gateway;
import dev.postern.policy.model.CredentialRef;
import dev.postern.policy.model.HttpTarget;
import dev.postern.policy.model.ParamSpec;
import dev.postern.policy.model.SshAuth;
import dev.postern.policy.model.SshHost;
import dev.postern.policy.model.TrustStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The config loader against DESIGN §4: a full config loads into the kernel's model, and every way a
 * file can be wrong yields one error naming the file, the JSON pointer and what was expected.
 */
class ConfigLoaderTest {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    @TempDir
    Path dir;

    /** A config using every section; each case below breaks one thing in a fresh copy. */
    static ObjectNode full() {
        ObjectNode root = JSON.objectNode();
        root.putObject("session").put("maxFrameBytes", 65536).put("maxInFlight", 4);
        root.putObject("journal").put("directory", "./journal");
        ObjectNode creds = root.putObject("credentials");
        creds.putObject("api-token").put("env", "POSTERN_TEST_TOKEN");
        creds.putObject("deploy-key").put("file", "keys/deploy_ed25519");
        creds.putObject("web-password").put("env", "POSTERN_TEST_PASSWORD");
        ObjectNode target = root.putObject("http").putArray("targets").addObject();
        target.put("name", "api").put("baseUrl", "https://API.Example.com.");
        target.putArray("methods").add("GET").add("POST");
        target.putArray("pathPrefixes").add("/v1/").add("/status");
        target.putArray("headers").add("Accept");
        target.putObject("auth").put("credential", "api-token").put("scheme", "bearer");
        target.put("timeoutMs", 2500).put("maxResponseBytes", 4096);
        ObjectNode host = root.putObject("ssh").putArray("hosts").addObject();
        host.put("name", "web-1").put("address", "10.0.0.5").put("port", 2222).put("user", "deploy");
        host.put("identity", "deploy-key").put("knownHosts", "ssh/known_hosts");
        host.put("timeoutSeconds", 7).put("maxOutputBytes", 2048);
        ArrayNode commands = host.putArray("commands");
        commands.addObject().put("name", "uptime").putArray("argv").add("uptime");
        ObjectNode tail = commands.addObject().put("name", "tail-log");
        tail.putArray("argv").add("tail").add("-n").add("{lines}").add("{file}");
        ObjectNode params = tail.putObject("params");
        params.putObject("lines").put("type", "integer").put("minimum", 1).put("maximum", 500);
        params.putObject("file").put("type", "string").put("pattern", "^/var/log/[a-z]+\\.log$").put("maxLength", 64);
        return root;
    }

    private Path write(ObjectNode config) throws IOException {
        return write(config.toPrettyString());
    }

    private Path write(String text) throws IOException {
        return write(text.getBytes(StandardCharsets.UTF_8));
    }

    private Path write(byte[] bytes) throws IOException {
        Path file = dir.resolve("postern.json");
        Files.write(file, bytes);
        return file;
    }

    private ConfigException refused(ObjectNode config) throws IOException {
        Path file = write(config);
        return assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
    }

    private static ObjectNode edit(Consumer<ObjectNode> change) {
        ObjectNode root = full();
        change.accept(root);
        return root;
    }

    private static ObjectNode target(ObjectNode root) {
        return (ObjectNode) root.get("http").get("targets").get(0);
    }

    private static ObjectNode host(ObjectNode root) {
        return (ObjectNode) root.get("ssh").get("hosts").get(0);
    }

    private static ObjectNode tail(ObjectNode root) {
        return (ObjectNode) host(root).get("commands").get(1);
    }

    private void assertNames(ConfigException e, Path file, String pointer, String expected) {
        assertEquals(file.toAbsolutePath().normalize(), e.file(), e.getMessage());
        assertEquals(pointer, e.pointer(), e.getMessage());
        assertTrue(e.getMessage().startsWith(file.toAbsolutePath().normalize() + " at " + (pointer.isEmpty() ? "/" : pointer) + ": "),
                e.getMessage());
        assertTrue(e.getMessage().toLowerCase(java.util.Locale.ROOT).contains(expected.toLowerCase(java.util.Locale.ROOT)),
                "message should say what was expected (" + expected + "): " + e.getMessage());
    }

    @Test
    void aFullConfigLoadsIntoThePolicyWithPathsResolvedAgainstItsDirectory() throws Exception {
        Path file = write(full());

        GatewayConfig config = Gateway.configLoader().load(file);

        assertEquals(65536, config.maxFrameBytes());
        assertEquals(4, config.maxInFlight());
        assertEquals(dir.resolve("journal"), config.journalDirectory());
        assertEquals(new CredentialSource.File(dir.resolve("keys/deploy_ed25519")), config.credentials().get(new CredentialRef("deploy-key")));
        assertEquals(new CredentialSource.Env("POSTERN_TEST_TOKEN"), config.credentials().get(new CredentialRef("api-token")));
        HttpTarget t = config.policy().allowances(HttpTarget.class).get(0);
        assertEquals("https://api.example.com:443", t.origin().toUrl(), "host lower-cased, trailing dot dropped, port explicit");
        assertEquals(Set.of("GET", "POST"), t.methods());
        assertEquals(List.of("/v1/", "/status"), t.pathPrefixes());
        assertEquals(Set.of("accept"), t.headers());
        assertEquals(new CredentialRef("api-token"), t.auth().orElseThrow().credential());
        assertEquals(Duration.ofMillis(2500), t.timeout());
        assertEquals(4096, t.maxResponseBytes());
        assertEquals(false, t.allowPrivateAddresses());
        SshHost h = config.policy().allowances(SshHost.class).get(0);
        assertEquals(2222, h.port());
        assertEquals(Optional.of(dir.resolve("ssh/known_hosts")), h.knownHosts());
        assertEquals(new SshAuth.Key(new CredentialRef("deploy-key"), Optional.empty()), h.auth());
        assertEquals(Duration.ofSeconds(7), h.timeout());
        ParamSpec lines = h.command("tail-log").orElseThrow().params().get("lines");
        assertEquals(new ParamSpec.IntegerParam(1, 500), lines);
    }

    @Test
    void relativePathsResolveAgainstTheConfigDirectoryNotTheWorkingDirectory() throws Exception {
        Path nested = Files.createDirectories(dir.resolve("a/b"));
        Path file = nested.resolve("c.json");
        Files.writeString(file, edit(r -> ((ObjectNode) r.get("journal")).put("directory", "../j")).toString());

        GatewayConfig config = Gateway.configLoader().load(nested.resolve("../b/./c.json"));

        assertEquals(dir.resolve("a/j"), config.journalDirectory());
        assertEquals(dir.resolve("a/b/keys/deploy_ed25519"),
                ((CredentialSource.File) config.credentials().get(new CredentialRef("deploy-key"))).path());
        assertEquals(Optional.of(dir.resolve("a/b/ssh/known_hosts")), config.policy().allowances(SshHost.class).get(0).knownHosts());
    }

    @Test
    void absolutePathsAreKeptAsWritten() throws Exception {
        Path elsewhere = dir.resolve("elsewhere/journal");
        GatewayConfig config = Gateway.configLoader().load(write(edit(r -> ((ObjectNode) r.get("journal")).put("directory", elsewhere.toString()))));
        assertEquals(elsewhere, config.journalDirectory());
    }

    @Test
    void theSchemaMemberIsAcceptedForEditors() throws Exception {
        ObjectNode root = full();
        root.put("$schema", "https://postern.dev/schema/postern-config.schema.json");
        assertEquals(1, Gateway.configLoader().load(write(root)).policy().allowances(HttpTarget.class).size());
    }

    @Test
    void aMinimalConfigAllowsNothingAndTakesTheDefaults() throws Exception {
        GatewayConfig config = Gateway.configLoader().load(write("{\"journal\":{\"directory\":\"j\"}}"));
        assertTrue(config.policy().allowances(HttpTarget.class).isEmpty());
        assertTrue(config.policy().allowances(SshHost.class).isEmpty());
        assertEquals(GatewayConfig.DEFAULT_MAX_FRAME_BYTES, config.maxFrameBytes());
        assertEquals(GatewayConfig.DEFAULT_MAX_IN_FLIGHT, config.maxInFlight());
        assertEquals(64L * 1024 * 1024, config.journalRotateBytes());
    }

    @Test
    void journalRotateBytesIsReadAndBoundedBelow() throws Exception {
        GatewayConfig config = Gateway.configLoader().load(write(edit(r -> ((ObjectNode) r.get("journal")).put("rotateBytes", 8192))));
        assertEquals(8192, config.journalRotateBytes());
        ConfigException small = refused(edit(r -> ((ObjectNode) r.get("journal")).put("rotateBytes", 100)));
        assertNames(small, dir.resolve("postern.json"), "/journal/rotateBytes", "4096");
    }

    static Stream<Arguments> unknownKeys() {
        return Stream.of(
                Arguments.of("top level", edit(r -> r.put("debug", true)), "/debug"),
                Arguments.of("session", edit(r -> ((ObjectNode) r.get("session")).put("maxFrames", 1)), "/session/maxFrames"),
                Arguments.of("journal", edit(r -> ((ObjectNode) r.get("journal")).put("rotate", true)), "/journal/rotate"),
                Arguments.of("http", edit(r -> ((ObjectNode) r.get("http")).put("proxy", "x")), "/http/proxy"),
                Arguments.of("http target", edit(r -> target(r).put("followRedirects", true)), "/http/targets/0/followRedirects"),
                Arguments.of("http auth", edit(r -> ((ObjectNode) target(r).get("auth")).put("token", "x")), "/http/targets/0/auth/token"),
                Arguments.of("http trust store", edit(r -> target(r).putObject("trustStore").put("file", "ca.p12")
                        .put("storePassword", "changeit")), "/http/targets/0/trustStore/storePassword"),
                Arguments.of("ssh", edit(r -> ((ObjectNode) r.get("ssh")).put("agent", true)), "/ssh/agent"),
                Arguments.of("ssh host", edit(r -> host(r).put("forwardAgent", true)), "/ssh/hosts/0/forwardAgent"),
                Arguments.of("ssh command", edit(r -> tail(r).put("shell", true)), "/ssh/hosts/0/commands/1/shell"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unknownKeys")
    void anUnknownKeyAtAnyLevelIsNamedByItsPointer(String level, ObjectNode config, String pointer) throws Exception {
        ConfigException e = refused(config);
        assertNames(e, dir.resolve("postern.json"), pointer, pointer.substring(pointer.lastIndexOf('/') + 1));
    }

    @Test
    void anUnknownKeyInsideACredentialOrParamIsReportedAtThatEntry() throws Exception {
        // credentials and params are oneOf alternatives; the error names the entry that matched none.
        ConfigException cred = refused(edit(r -> ((ObjectNode) r.get("credentials").get("api-token")).put("value", "s3cret")));
        assertTrue(cred.pointer().startsWith("/credentials/api-token"), cred.getMessage());
        assertTrue(!cred.getMessage().contains("s3cret"), "the message must not echo a would-be inline secret: " + cred.getMessage());
        ConfigException param = refused(edit(r -> ((ObjectNode) tail(r).get("params").get("lines")).put("default", 5)));
        assertTrue(param.pointer().startsWith("/ssh/hosts/0/commands/1/params/lines"), param.getMessage());
    }

    static Stream<Arguments> wrongTypes() {
        return Stream.of(
                Arguments.of(edit(r -> ((ObjectNode) r.get("session")).put("maxFrameBytes", "big")), "/session/maxFrameBytes", "integer"),
                Arguments.of(edit(r -> ((ObjectNode) r.get("session")).put("maxInFlight", 2.5)), "/session/maxInFlight", "integer"),
                Arguments.of(edit(r -> r.put("journal", "./j")), "/journal", "object"),
                Arguments.of(edit(r -> target(r).put("methods", "GET")), "/http/targets/0/methods", "array"),
                Arguments.of(edit(r -> target(r).put("allowPrivateAddresses", "yes")), "/http/targets/0/allowPrivateAddresses", "boolean"),
                Arguments.of(edit(r -> host(r).put("port", "22")), "/ssh/hosts/0/port", "integer"),
                Arguments.of(edit(r -> host(r).put("port", 70000)), "/ssh/hosts/0/port", "65535"),
                Arguments.of(edit(r -> ((ArrayNode) tail(r).get("argv")).add(7)), "/ssh/hosts/0/commands/1/argv/4", "string"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("wrongTypes")
    void aWrongTypeIsNamedByItsPointerWithTheExpectedType(ObjectNode config, String pointer, String expected) throws Exception {
        assertNames(refused(config), dir.resolve("postern.json"), pointer, expected);
    }

    @Test
    void aMissingRequiredMemberIsNamed() throws Exception {
        assertNames(refused(edit(r -> r.remove("journal"))), dir.resolve("postern.json"), "/journal", "journal");
        assertNames(refused(edit(r -> target(r).remove("pathPrefixes"))), dir.resolve("postern.json"),
                "/http/targets/0/pathPrefixes", "pathPrefixes");
    }

    @Test
    void aTargetNamingAnUndefinedCredentialIsRefused() throws Exception {
        ConfigException e = refused(edit(r -> ((ObjectNode) target(r).get("auth")).put("credential", "no-such-token")));
        assertNames(e, dir.resolve("postern.json"), "/http/targets/0/auth/credential", "credential defined under /credentials");
        assertTrue(e.getMessage().contains("value is not shown"), e.getMessage());
    }

    /** Values an operator might type where a credential's name belongs: a token, a passphrase, a PIN. */
    static Stream<Arguments> secretsTypedAsCredentialNames() {
        return Stream.of(
                Arguments.of(new TextNodeValue("ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"), "ghp_A1b2"),
                Arguments.of(new TextNodeValue("correct horse battery staple!"), "horse battery"),
                Arguments.of(new NumberValue(48151623L), "48151623"));
    }

    /** A field value to put into the config: text (fails the loader's check) or a number (fails the schema's). */
    sealed interface Value permits TextNodeValue, NumberValue {
        void putInto(ObjectNode node, String field);
    }

    record TextNodeValue(String text) implements Value {
        public void putInto(ObjectNode node, String field) {
            node.put(field, text);
        }
    }

    record NumberValue(long number) implements Value {
        public void putInto(ObjectNode node, String field) {
            node.put(field, number);
        }
    }

    @Test
    void aSecretPastedWithoutQuotesIsNotEchoedBySyntaxErrors() throws Exception {
        for (String json : List.of(
                "{ \"journal\": { \"directory\": \"j\" }, \"credentials\": {}, \"ssh\": { \"hosts\": [ { \"identity\": ghp_Z9y8X7w6secret } ] } }",
                "{ \"journal\": { \"directory\": \"j\" }, \"ssh\": { \"hosts\": [ { \"password\": hunter2, } ] } }")) {
            Path file = Files.writeString(dir.resolve("postern.json"), json);

            ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));

            assertTrue(e.getMessage().contains("strict JSON") && e.getMessage().contains("not shown"), e.getMessage());
            assertTrue(!e.getMessage().contains("ghp_Z9y8") && !e.getMessage().contains("hunter2"), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("secretsTypedAsCredentialNames")
    void aSecretTypedWhereACredentialNameBelongsIsNeverEchoed(Value secret, String fragment) throws Exception {
        Files.write(dir.resolve("ca.p12"), new byte[] {1});
        Path file = dir.resolve("postern.json");
        List<ConfigException> errors = List.of(
                refused(edit(r -> secret.putInto((ObjectNode) target(r).get("auth"), "credential"))),
                refused(edit(r -> secret.putInto(host(r), "identity"))),
                refused(edit(r -> secret.putInto(host(r), "passphrase"))),
                refused(edit(r -> {
                    host(r).remove(List.of("identity", "passphrase"));
                    secret.putInto(host(r), "password");
                })),
                refused(edit(r -> secret.putInto(target(r).putObject("trustStore").put("file", "ca.p12"), "password"))));
        List<String> pointers = List.of("/http/targets/0/auth/credential", "/ssh/hosts/0/identity", "/ssh/hosts/0/passphrase",
                "/ssh/hosts/0/password", "/http/targets/0/trustStore/password");

        for (int i = 0; i < errors.size(); i++) {
            ConfigException e = errors.get(i);
            assertNames(e, file, pointers.get(i), "credential defined under /credentials");
            assertTrue(e.getMessage().contains("value is not shown"), e.getMessage());
            assertTrue(!e.getMessage().contains(fragment), "the message must not echo the would-be secret: " + e.getMessage());
        }
    }

    @Test
    void aHostNamingAnUndefinedIdentityOrPassphraseIsRefused() throws Exception {
        assertNames(refused(edit(r -> host(r).put("identity", "nope"))), dir.resolve("postern.json"),
                "/ssh/hosts/0/identity", "credential defined under /credentials");
        assertNames(refused(edit(r -> host(r).put("passphrase", "nope"))), dir.resolve("postern.json"),
                "/ssh/hosts/0/passphrase", "credential defined under /credentials");
    }

    static Stream<Arguments> badBaseUrls() {
        return Stream.of(
                Arguments.of("https://api.example.com/v1", "path"),
                Arguments.of("https://user:pw@api.example.com", "user info"),
                Arguments.of("https://api.example.com?x=1", "query"),
                Arguments.of("https://api.example.com#top", "fragment"),
                Arguments.of("https:///v1", "host"),
                Arguments.of("https://api example.com", "not a URL"),
                // Read as a request URL's host is: a host no request could ever match is refused at load.
                Arguments.of("http://127.000.0.1:8080", "baseUrl \"http://127.000.0.1:8080\": IPv4 addresses must be four decimal parts without leading zeros"),
                Arguments.of("http://2130706433", "IPv4 addresses must be four decimal parts"),
                Arguments.of("https://" + "a".repeat(64) + ".example", "host must be an ASCII host name"),
                Arguments.of("http://[fe80::1%25eth0]:8080", "IPv6 zone ids are not allowed"));
    }

    @Test
    void aBaseUrlWithATrailingDotAfterAnIpv4AddressIsReadAsARequestUrlIs() throws Exception {
        Path file = write(edit(r -> target(r).put("baseUrl", "http://127.0.0.1.:8080")));
        assertEquals("http://127.0.0.1:8080", Gateway.configLoader().load(file).policy().allowances(HttpTarget.class).get(0).origin().toUrl());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBaseUrls")
    void aBadBaseUrlIsNamedWithWhatIsWrong(String baseUrl, String expected) throws Exception {
        ConfigException e = refused(edit(r -> target(r).put("baseUrl", baseUrl)));
        assertNames(e, dir.resolve("postern.json"), "/http/targets/0/baseUrl", expected);
    }

    @Test
    void aBaseUrlWithAnotherSchemeFailsTheSchema() throws Exception {
        assertNames(refused(edit(r -> target(r).put("baseUrl", "ftp://files.example.com"))), dir.resolve("postern.json"),
                "/http/targets/0/baseUrl", "^https?://");
    }

    @Test
    void aHostWithBothIdentityAndPasswordIsRefused() throws Exception {
        ConfigException e = refused(edit(r -> host(r).put("password", "web-password")));
        assertNames(e, dir.resolve("postern.json"), "/ssh/hosts/0", "exactly one of \"identity\" or \"password\"");
    }

    @Test
    void aHostWithNeitherIdentityNorPasswordIsRefused() throws Exception {
        ConfigException e = refused(edit(r -> host(r).remove("identity")));
        assertNames(e, dir.resolve("postern.json"), "/ssh/hosts/0", "exactly one of \"identity\" or \"password\"");
    }

    @Test
    void aPassphraseWithPasswordAuthenticationIsRefused() throws Exception {
        ConfigException e = refused(edit(r -> { host(r).remove("identity"); host(r).put("password", "web-password").put("passphrase", "web-password"); }));
        assertNames(e, dir.resolve("postern.json"), "/ssh/hosts/0/passphrase", "no passphrase");
    }

    @Test
    void aHostWithoutKnownHostsOrFingerprintIsRefused() throws Exception {
        ConfigException e = refused(edit(r -> host(r).remove("knownHosts")));
        assertNames(e, dir.resolve("postern.json"), "/ssh/hosts/0", "knownHosts or hostKeyFingerprint");
    }

    @Test
    void anInvalidRegexInAParamPatternIsNamedWithTheRegexError() throws Exception {
        ConfigException e = refused(edit(r -> ((ObjectNode) tail(r).get("params").get("file")).put("pattern", "^/var/log/(unclosed")));
        assertNames(e, dir.resolve("postern.json"), "/ssh/hosts/0/commands/1/params/file/pattern", "a valid regular expression");
    }

    @Test
    void aPlaceholderWithoutAParamIsRefusedAtItsCommand() throws Exception {
        ConfigException e = refused(edit(r -> ((ObjectNode) tail(r).get("params")).remove("file")));
        assertEquals("/ssh/hosts/0/commands/1", e.pointer(), e.getMessage());
        assertTrue(e.getMessage().contains("file"), e.getMessage());
    }

    @Test
    void malformedJsonNamesTheFileTheLineAndTheColumnAndNoPointer() throws Exception {
        Path file = write("{\"journal\": {\"directory\": \"j\"},}");
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertEquals(file, e.file());
        assertNull(e.pointer());
        assertTrue(e.getMessage().startsWith(file + ": line 1, column 32: one strict JSON object"), e.getMessage());
    }

    @Test
    void aSyntaxErrorOnALaterLineIsLocatedThereWithoutEchoingTheToken() throws Exception {
        Path file = write("{\n  \"journal\": { \"directory\": \"j\" },\n  \"credentials\": { \"t\": { \"env\": ghp_Z9y8secret } }\n}\n");
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertTrue(e.getMessage().startsWith(file + ": line 3, column 34: "), e.getMessage());
        assertFalse(e.getMessage().contains("ghp_Z9y8"), e.getMessage());
    }

    @Test
    void theExamplesTheReadmePointsToLoad() throws Exception {
        for (String example : List.of("postern.json", "postern-ssh.json")) {
            GatewayConfig config = Gateway.configLoader().load(Path.of("..", "examples", example));
            assertFalse(config.policy().allowances(HttpTarget.class).isEmpty(), example);
        }
        assertEquals(1, Gateway.configLoader().load(Path.of("..", "examples", "postern-ssh.json")).policy().allowances(SshHost.class).size());
    }

    @Test
    void everySchemaErrorIsListedNotOnlyTheFirst() throws Exception {
        ConfigException e = refused(edit(r -> {
            target(r).put("timeoutMs", "soon");
            host(r).put("port", 0);
            r.putObject("surprise");
        }));
        assertEquals(3, e.problems().size(), e.getMessage());
        assertTrue(e.getMessage().contains("3 problems"), e.getMessage());
        for (String pointer : List.of("at /http/targets/0/timeoutMs: ", "at /ssh/hosts/0/port: ", "at /surprise: ")) {
            assertTrue(e.getMessage().contains("\n  " + pointer), pointer + " in " + e.getMessage());
        }
    }

    @Test
    void aHomeRelativePathIsRefusedInEveryPathFieldAtOnce() throws Exception {
        ConfigException e = refused(edit(r -> {
            r.putObject("journal").put("directory", "~/journal");
            ((ObjectNode) r.get("credentials").get("deploy-key")).put("file", "~/.ssh/id_ed25519");
            host(r).put("knownHosts", "~/.ssh/known_hosts");
            target(r).putObject("trustStore").put("file", "~/ca.p12");
        }));
        assertEquals(List.of("/journal/directory", "/credentials/deploy-key/file", "/http/targets/0/trustStore/file",
                "/ssh/hosts/0/knownHosts"), e.problems().stream().map(ConfigException.Problem::pointer).toList(), e.getMessage());
        assertTrue(e.getMessage().contains("\"~\" is not expanded"), e.getMessage());
    }

    @Test
    void trailingContentAfterTheObjectIsRefused() throws Exception {
        Path file = write("{\"journal\": {\"directory\": \"j\"}} {}");
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertTrue(e.getMessage().contains("one strict JSON object"), e.getMessage());
    }

    @Test
    void duplicateKeysAreRefusedRatherThanLastOneWins() throws Exception {
        // Last-one-wins would let a later "methods" silently widen what an earlier one allowed.
        Path file = write("{\"journal\": {\"directory\": \"j\"}, \"journal\": {\"directory\": \"k\"}}");
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertNull(e.pointer());
        assertTrue(e.getMessage().contains("one strict JSON object") && e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("duplicate"),
                e.getMessage());
    }

    @Test
    void aFileThatIsNotUtf8IsRefused() throws Exception {
        byte[] latin1 = "{\"journal\": {\"directory\": \"journ\u00e9l\"}}".getBytes(StandardCharsets.ISO_8859_1);
        Path file = write(latin1);
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertEquals(file + ": UTF-8 text", e.getMessage());
    }

    @Test
    void aMissingFileIsNamed() {
        Path file = dir.resolve("absent.json");
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertEquals(file, e.file());
        assertTrue(e.getMessage().startsWith(file + ": a readable file"), e.getMessage());
    }

    @Test
    void aTopLevelArrayIsRefusedByTheSchema() throws Exception {
        Path file = write("[]");
        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));
        assertEquals("", e.pointer());
        assertTrue(e.getMessage().startsWith(file + " at /: "), e.getMessage());
    }

    @Test
    void aPathPrefixThatCouldNeverMatchIsRefusedNamingPathPrefixes() throws Exception {
        for (String prefix : List.of("/search?q=", "/docs#top", "/admin;x=1", "/my files")) {
            ConfigException e = refused(edit(r -> ((ArrayNode) target(r).get("pathPrefixes")).add(prefix)));
            assertNames(e, dir.resolve("postern.json"), "/http/targets/0", "pathPrefixes");
            assertTrue(e.getMessage().contains(prefix), e.getMessage());
        }
    }

    @Test
    void aTargetTakesTheDefaultTrustAndTruncatesUnlessItSaysOtherwise() throws Exception {
        HttpTarget t = Gateway.configLoader().load(write(full())).policy().allowances(HttpTarget.class).get(0);

        assertEquals(Optional.empty(), t.trustStore());
        assertEquals(HttpTarget.OversizeResponse.TRUNCATE, t.onOversizeResponse());
    }

    @Test
    void confirmMarksMethodsAndCommandsThatNeedApprovalAndNothingByDefault() throws Exception {
        GatewayConfig plain = Gateway.configLoader().load(write(full()));
        assertEquals(java.util.Set.of(), plain.policy().allowances(HttpTarget.class).get(0).confirm());
        assertFalse(plain.policy().allowances(SshHost.class).get(0).commands().get(1).confirm());
        assertEquals(java.time.Duration.ofSeconds(ConfigDefaults.APPROVAL_TIMEOUT_SECONDS), plain.approvalTimeout());

        GatewayConfig marked = Gateway.configLoader().load(write(edit(r -> {
            target(r).putArray("confirm").add("POST");
            tail(r).put("confirm", true);
            ((ObjectNode) r.get("session")).put("approvalTimeoutSeconds", 30);
        })));
        HttpTarget t = marked.policy().allowances(HttpTarget.class).get(0);
        assertEquals(java.util.Set.of("POST"), t.confirm());
        assertTrue(t.needsApproval("POST"));
        assertFalse(t.needsApproval("GET"));
        assertTrue(marked.policy().allowances(SshHost.class).get(0).commands().get(1).confirm());
        assertFalse(marked.policy().allowances(SshHost.class).get(0).commands().get(0).confirm());
        assertEquals(java.time.Duration.ofSeconds(30), marked.approvalTimeout());
    }

    @Test
    void aConfirmMethodTheTargetDoesNotAllowIsRefusedAtItsPointer() throws Exception {
        assertNames(refused(edit(r -> target(r).putArray("confirm").add("POST").add("DELETE"))), dir.resolve("postern.json"),
                "/http/targets/0/confirm/1", "one of the target's methods");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3601, -1})
    void anApprovalTimeoutOutside1To3600SecondsIsRefusedByTheSchema(int seconds) throws Exception {
        assertNames(refused(edit(r -> ((ObjectNode) r.get("session")).put("approvalTimeoutSeconds", seconds))),
                dir.resolve("postern.json"), "/session/approvalTimeoutSeconds", seconds < 1 ? "1" : "3600");
    }

    @Test
    void eachConfirmRuleIsAnsweredByTheChannelItNamesElseBySessionApprovalWhichDefaultsToAny() throws Exception {
        GatewayConfig plain = Gateway.configLoader().load(write(edit(r -> tail(r).put("confirm", true))));
        String command = "ssh.command:" + plain.policy().allowances(SshHost.class).get(0).name() + "."
                + plain.policy().allowances(SshHost.class).get(0).commands().get(1).name();
        String target = "http.target:" + plain.policy().allowances(HttpTarget.class).get(0).name();
        assertEquals(ApprovalChannel.ANY, plain.approvalChannels().of(command));
        assertTrue(plain.policy().allowances(SshHost.class).get(0).commands().get(1).confirm());

        GatewayConfig named = Gateway.configLoader().load(write(edit(r -> {
            r.putObject("session").put("approval", "local");
            tail(r).put("confirm", "client");
            ObjectNode confirm = target(r).putObject("confirm");
            confirm.putArray("methods").add(target(r).get("methods").get(0).textValue());
            confirm.put("channel", "any");
        })));
        assertEquals(ApprovalChannel.LOCAL, named.approvalChannels().session());
        assertEquals(ApprovalChannel.CLIENT, named.approvalChannels().of(command));
        assertEquals(ApprovalChannel.ANY, named.approvalChannels().of(target));
        assertTrue(named.policy().allowances(SshHost.class).get(0).commands().get(1).confirm(), "a channel's word marks the rule confirm");
        assertEquals(1, named.policy().allowances(HttpTarget.class).get(0).confirm().size());
        assertEquals(ApprovalChannel.LOCAL, named.approvalChannels().of("sql.statement:none.other"));
    }

    @Test
    void aConfirmThatIsNotABooleanOrAMethodListIsRefusedByTheSchema() throws Exception {
        assertNames(refused(edit(r -> tail(r).put("confirm", "yes"))), dir.resolve("postern.json"),
                "/ssh/hosts/0/commands/1/confirm", "enumeration");
        assertNames(refused(edit(r -> target(r).put("confirm", true))), dir.resolve("postern.json"),
                "/http/targets/0/confirm", "array");
    }

    @Test
    void onOversizeResponseRefuseLoadsAsRefusal() throws Exception {
        HttpTarget t = Gateway.configLoader().load(write(edit(r -> target(r).put("onOversizeResponse", "refuse"))))
                .policy().allowances(HttpTarget.class).get(0);

        assertEquals(HttpTarget.OversizeResponse.REFUSE, t.onOversizeResponse());
    }

    @Test
    void anUnknownOversizeChoiceIsRefusedByTheSchema() throws Exception {
        assertNames(refused(edit(r -> target(r).put("onOversizeResponse", "drop"))), dir.resolve("postern.json"),
                "/http/targets/0/onOversizeResponse", "refuse");
    }

    @Test
    void aTrustStoreResolvesAgainstTheConfigDirectoryAndNamesItsPasswordCredential() throws Exception {
        Path nested = Files.createDirectories(dir.resolve("a/b"));
        Files.createDirectories(nested.resolve("certs"));
        Files.write(nested.resolve("certs/ca.p12"), new byte[] {1});
        Path file = nested.resolve("c.json");
        Files.writeString(file, edit(r -> target(r).putObject("trustStore").put("file", "certs/./ca.p12")
                .put("password", "web-password")).toString());

        HttpTarget t = Gateway.configLoader().load(nested.resolve("../b/c.json")).policy().allowances(HttpTarget.class).get(0);

        assertEquals(Optional.of(new TrustStore(nested.resolve("certs/ca.p12"), TrustStore.Type.PKCS12,
                Optional.of(new CredentialRef("web-password")))), t.trustStore());
    }

    @Test
    void aJksTrustStoreNeedsNoPassword() throws Exception {
        Files.write(dir.resolve("ca.jks"), new byte[] {1});

        HttpTarget t = Gateway.configLoader().load(write(edit(r -> target(r).putObject("trustStore").put("file", "ca.jks")
                .put("type", "JKS")))).policy().allowances(HttpTarget.class).get(0);

        assertEquals(Optional.of(new TrustStore(dir.resolve("ca.jks"), TrustStore.Type.JKS, Optional.empty())), t.trustStore());
    }

    @Test
    void aTrustStorePasswordNamingNoCredentialIsRefusedWithoutEchoingIt() throws Exception {
        Files.write(dir.resolve("ca.p12"), new byte[] {1});
        for (String inline : List.of("hunter2-store-pass", "pass word!")) {
            ConfigException e = refused(edit(r -> target(r).putObject("trustStore").put("file", "ca.p12").put("password", inline)));

            assertNames(e, dir.resolve("postern.json"), "/http/targets/0/trustStore/password", "credential defined under /credentials");
            assertTrue(!e.getMessage().contains(inline), "the message must not echo a would-be inline password: " + e.getMessage());
        }
    }

    @Test
    void aMissingTrustStoreFileIsRefusedNamingTheResolvedPath() throws Exception {
        ConfigException e = refused(edit(r -> target(r).putObject("trustStore").put("file", "certs/missing.p12")));

        assertNames(e, dir.resolve("postern.json"), "/http/targets/0/trustStore/file", "readable trust store file");
        assertTrue(e.getMessage().contains(dir.resolve("certs/missing.p12").toString()), e.getMessage());
    }

    @Test
    void aTrustStoreTypeOutsideTheListIsRefusedByTheSchema() throws Exception {
        assertNames(refused(edit(r -> target(r).putObject("trustStore").put("file", "ca.pem").put("type", "PEM"))),
                dir.resolve("postern.json"), "/http/targets/0/trustStore/type", "PKCS12");
    }

    @Test
    void aTrustStoreOnAPlainHttpTargetIsRefused() throws Exception {
        Files.write(dir.resolve("ca.p12"), new byte[] {1});
        ConfigException e = refused(edit(r -> target(r).put("baseUrl", "http://api.example.com")
                .putObject("trustStore").put("file", "ca.p12")));

        assertNames(e, dir.resolve("postern.json"), "/http/targets/0", "trustStore needs an https baseUrl");
    }

    @Test
    void aLowerCaseMethodIsRefusedNamingMethods() throws Exception {
        // The schema's pattern catches it first, at the element's pointer.
        ConfigException e = refused(edit(r -> ((ArrayNode) target(r).get("methods")).add("get")));
        assertEquals("/http/targets/0/methods/2", e.pointer(), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"Authorization", "Host", "Transfer-Encoding", "content-length", "Cookie", "X-Forwarded-For",
        "Proxy-Connection", "TE", "Connection"})
    void aHeaderTheAgentCanNeverSetIsRefusedAtItsPointer(String header) throws Exception {
        Path file = write(edit(r -> ((ArrayNode) target(r).get("headers")).add("X-Request-Id").add(header)));

        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));

        assertNames(e, file, "/http/targets/0/headers/2", header + " is always set by Postern");
    }

    @Test
    void anOrdinaryHeaderNameThatOnlyResemblesAForbiddenOneLoads() throws Exception {
        Path file = write(edit(r -> ((ArrayNode) target(r).get("headers")).add("X-Host").add("Authorization-Hint")));

        assertEquals(Set.of("accept", "x-host", "authorization-hint"),
                Gateway.configLoader().load(file).policy().allowances(HttpTarget.class).get(0).headers());
    }

    @Test
    void aCommandCredentialLoadsWithItsArgvAndTheDefaultTimeoutAndCacheLifetime() throws Exception {
        Path file = write(edit(root -> ((ObjectNode) root.get("credentials")).putObject("db-password")
                .putArray("command").add("pass").add("show").add("postern/db")));

        GatewayConfig config = Gateway.configLoader().load(file);

        assertEquals(new CredentialSource.Command(List.of("pass", "show", "postern/db"),
                        Duration.ofMillis(ConfigDefaults.CREDENTIAL_COMMAND_TIMEOUT_MS),
                        Duration.ofSeconds(ConfigDefaults.CREDENTIAL_COMMAND_CACHE_SECONDS)),
                config.credentials().get(new CredentialRef("db-password")));
    }

    @Test
    void aCommandCredentialTakesItsTimeoutAndCacheLifetimeFromTheFile() throws Exception {
        Path file = write(edit(root -> {
            ObjectNode c = ((ObjectNode) root.get("credentials")).putObject("db-password");
            c.putArray("command").add("/usr/bin/secret-tool").add("lookup").add("service").add("postern");
            c.put("timeoutMs", 2500).put("cacheSeconds", 60);
        }));

        CredentialSource.Command c = (CredentialSource.Command) Gateway.configLoader().load(file).credentials()
                .get(new CredentialRef("db-password"));

        assertEquals(Duration.ofMillis(2500), c.timeout());
        assertEquals(Duration.ofSeconds(60), c.cacheFor());
        assertEquals("/usr/bin/secret-tool", c.program());
    }

    @Test
    void aCommandWhoseProgramIsARelativePathIsRefusedAtItsFirstElement() throws Exception {
        ConfigException e = refused(edit(root -> ((ObjectNode) root.get("credentials")).putObject("db-password")
                .putArray("command").add("./bin/get-secret")));

        assertNames(e, dir.resolve("postern.json"), "/credentials/db-password/command/0", "absolute path or a bare name found on PATH");
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"command\": []}", "{\"command\": [\"pass\"], \"timeoutMs\": 0}",
            "{\"command\": [\"pass\"], \"cacheSeconds\": 0}", "{\"command\": [\"pass\"], \"cacheSeconds\": 86401}",
            "{\"command\": [\"pass\"], \"shell\": true}", "{\"command\": \"pass show x\"}"})
    void aCommandCredentialOutsideTheSchemaIsRefusedAtTheCredential(String credential) throws Exception {
        Path file = write(full().toPrettyString().replace("\"web-password\" : {\n      \"env\" : \"POSTERN_TEST_PASSWORD\"\n    }",
                "\"web-password\" : " + credential));

        ConfigException e = assertThrows(ConfigException.class, () -> Gateway.configLoader().load(file));

        assertTrue(e.pointer().startsWith("/credentials/web-password"), e.getMessage());
    }

    @Test
    void anEmptyProgramNameIsRefusedByTheRecordItself() {
        assertThrows(IllegalArgumentException.class,
                () -> new CredentialSource.Command(List.of(""), Duration.ofSeconds(1), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class,
                () -> new CredentialSource.Command(List.of(), Duration.ofSeconds(1), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class,
                () -> new CredentialSource.Command(List.of("pass", "a\0b"), Duration.ofSeconds(1), Duration.ofSeconds(1)));
    }
}
