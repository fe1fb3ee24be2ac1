package dev.postern.app.architecture;

import static com.tngtech.archunit.lang.conditions.ArchConditions.accessField;
import static com.tngtech.archunit.lang.conditions.ArchConditions.accessTargetWhere;
import static com.tngtech.archunit.lang.conditions.ArchConditions.callMethod;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.InstanceofCheck;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.FileDescriptor;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The architecture invariants of DESIGN §2 and STYLE §10, one rule per field, in one place.
 * {@code ArchitectureTest} checks every field against the production classes and
 * {@code ArchitectureRulesSelfTest} proves each one fails on a deliberate violation.
 *
 * <p>Rules name packages and classes by string, so they compile before the classes exist, and every
 * rule fails rather than passes when nothing matches its subject ({@code allowEmptyShould(false)}):
 * a misspelled package cannot make a rule check nothing. Stateless and thread-safe.
 */
public final class ArchitectureRules {

    static final String POLICY = "dev.postern.policy..";
    static final String TRANSPORT = "dev.postern.transport..";
    static final String PROTOCOL = "dev.postern.protocol..";
    static final String EXECUTORS = "dev.postern.executor..";
    static final String APP = "dev.postern.app..";
    static final String TEST_FIXTURES = "dev.postern.fixtures..";
    static final String DEMO = "dev.postern.demo..";
    static final String BENCH = "dev.postern.bench..";
    static final String TELEMETRY = "dev.postern.telemetry..";
    /** An executor module's package for what must be public for a library, not for its users. */
    static final String INTERNAL = "dev.postern.executor..internal..";
    /** The one class of app that names the telemetry adapter, reached only when the config turns telemetry on. */
    public static final String TELEMETRY_ENTRY = "dev.postern.app.TelemetryExport";

    static final String ACTION = "dev.postern.policy.action.Action";
    static final String OUTCOME = "dev.postern.policy.outcome.Outcome";
    /** The one outcome that belongs to no kind: every presenter may ask whether an outcome failed. */
    static final String EXECUTION_FAILURE = "dev.postern.policy.outcome.ExecutionFailure";
    static final String POLICY_ENGINE = "dev.postern.policy.PolicyEngine";
    /** A kind of effect's own code: its presentation in the protocol, and its rules in the kernel. */
    static final String EFFECT_KIND = "dev.postern.protocol.tools.EffectKind";
    static final String KERNEL_RULES = "dev.postern.policy.Rules";

    static final String AUTHORIZED_ACTION = "dev.postern.policy.AuthorizedAction";
    static final String ACTION_EXECUTOR = "dev.postern.policy.port.ActionExecutor";
    /** The one class that claims the process's stdout at start-up (DESIGN §3). */
    public static final String STDOUT_GUARD = "dev.postern.transport.StdoutGuard";
    /**
     * The one test fixture that writes its own process's stdout: a stand-in upstream MCP server, run as a
     * child process, whose stdout is its protocol stream (raw bytes: duplicate keys, invalid UTF-8).
     */
    public static final String HOSTILE_UPSTREAM = "dev.postern.fixtures.upstream.HostileUpstream";
    /** The one class that hands a fresh permit to an executor (DESIGN §2). */
    public static final String DISPATCHER = "dev.postern.app.Dispatcher";

    private static final Pattern TESTS_JAR = Pattern.compile(".*-tests\\.jar!/.*");

    /** Library classes that switch off a check Postern depends on: host keys, logins, TLS. */
    static final Set<String> TRUST_SHORTCUTS = Set.of(
            "org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier",
            "org.apache.sshd.server.auth.pubkey.AcceptAllPublickeyAuthenticator",
            "org.apache.sshd.server.auth.password.AcceptAllPasswordAuthenticator",
            "org.apache.sshd.server.auth.hostbased.AcceptAllHostBasedAuthenticator",
            "org.apache.hc.client5.http.ssl.TrustAllStrategy",
            "org.apache.hc.client5.http.ssl.TrustSelfSignedStrategy",
            "org.apache.hc.client5.http.ssl.NoopHostnameVerifier");

    public static final ArchRule ONLY_POLICY_CONSTRUCTS_AN_AUTHORIZED_ACTION = noClasses()
            .that().resideOutsideOfPackage(POLICY)
            .should(accessTargetWhere(aConstructorOf(AUTHORIZED_ACTION)))
            .because("a permit is the policy engine's decision; a permit made anywhere else is a forgery"
                    + " that no executor could tell from the real thing")
            .allowEmptyShould(false);

    public static final ArchRule NO_CLASS_OUTSIDE_THE_POLICY_MODULE_LIVES_IN_ITS_PACKAGES = classes()
            .that().resideInAPackage(POLICY)
            .should(comeFromTheCodeSourceOf(AUTHORIZED_ACTION))
            .because("package-private constructors seal the permits only while no other jar can add a class"
                    + " to the policy's packages (there is no JPMS module-info yet to forbid split packages)")
            .allowEmptyShould(false);

    public static final ArchRule POLICY_DEPENDS_ON_THE_JDK_ONLY = classes()
            .that().resideInAPackage(POLICY)
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", POLICY)
            .because("the kernel decides what may happen and must not change with any library or adapter")
            .allowEmptyShould(false);

    public static final ArchRule POLICY_KNOWS_NO_ADAPTER_LIBRARY = noClasses()
            .that().resideInAPackage(POLICY)
            .should().dependOnClassesThat().resideInAnyPackage("org.apache.hc..", "org.apache.sshd..")
            .because("the kernel describes effects; HttpClient and SSHD belong to the executors that cause them")
            .allowEmptyShould(false);

    public static final ArchRule TRANSPORT_DEPENDS_ON_THE_JDK_ONLY = classes()
            .that().resideInAPackage(TRANSPORT)
            .should().onlyDependOnClassesThat().resideInAnyPackage("java..", TRANSPORT)
            .because("framing judges bytes before anything else runs, so it must not pull in a parser,"
                    + " a logger or the kernel")
            .allowEmptyShould(false);

    public static final ArchRule EXECUTORS_NEVER_SEE_RAW_JSON = noClasses()
            .that().resideInAPackage(EXECUTORS)
            .should().dependOnClassesThat().resideInAnyPackage("com.fasterxml..", "com.networknt..", PROTOCOL)
            .because("an executor receives only a typed permit; JSON, the wire and the schema stay in front"
                    + " of the policy decision (the upstream executor gets the gateway's own strict JSON through"
                    + " the kernel's JsonCodec port, never a parser library)")
            .allowEmptyShould(false);

    /** The one executor whose effect is JSON-RPC over a child's stdio (DESIGN §2's designed exception). */
    static final String UPSTREAM_EXECUTOR = "dev.postern.executor.mcp..";

    public static final ArchRule ONLY_THE_UPSTREAM_EXECUTOR_READS_FRAMES = noClasses()
            .that().resideInAPackage(EXECUTORS).and().resideOutsideOfPackage(UPSTREAM_EXECUTOR)
            .should().dependOnClassesThat().resideInAPackage(TRANSPORT)
            .because("the wire stays in front of the policy decision; only executor-mcp, whose effect is an MCP"
                    + " session with a child process, reads frames, with the transport's own reader")
            .allowEmptyShould(false);

    public static final ArchRule THE_UPSTREAM_EXECUTOR_READS_FRAMES_WITH_THE_GATEWAYS_OWN_READER = noClasses()
            .that().resideInAPackage(UPSTREAM_EXECUTOR)
            .should().dependOnClassesThat(DescribedPredicate.describe("are transport classes other than the frame reader and"
                    + " what it returns", (JavaClass c) -> c.getPackageName().startsWith("dev.postern.transport")
                    && !List.of("FrameReader", "ReadResult", "Frame", "FramingError", "EndOfInput")
                            .contains(c.getName().substring("dev.postern.transport.".length()).split("\\$")[0])))
            .because("an upstream's stdout meets exactly the framing the agent's stdin meets: FrameReader, one"
                    + " implementation; nothing else of the transport (its writer owns the gateway's stdout)")
            .allowEmptyShould(false);

    public static final ArchRule EXECUTORS_DO_NOT_KNOW_EACH_OTHER = slices()
            .matching("dev.postern.executor.(*)..")
            .should().notDependOnEachOther()
            .because("each adapter is one replaceable technology; only the composition root puts them together")
            .allowEmptyShould(false);

    public static final ArchRule ONLY_THE_STDOUT_GUARD_TOUCHES_THE_PROTOCOL_STREAM =
            onlyTheGuardTouchesTheProtocolStream(STDOUT_GUARD, HOSTILE_UPSTREAM);

    public static final ArchRule ONLY_THE_DISPATCHER_CALLS_AN_EXECUTOR =
            onlyTheDispatcherCallsAnExecutor(DISPATCHER);

    public static final ArchRule TRUST_SHORTCUTS_ARE_USED_ONLY_IN_TEST_FIXTURES = noClasses()
            .that().resideOutsideOfPackage(TEST_FIXTURES)
            .should().dependOnClassesThat(aTrustShortcut())
            .because("host keys, logins and TLS certificates are always verified; the accept-all helpers exist"
                    + " for test servers on loopback only")
            .allowEmptyShould(false);

    public static final ArchRule PROTOCOL_DEPENDS_ON_NEITHER_EXECUTORS_NOR_APP = noClasses()
            .that().resideInAPackage(PROTOCOL)
            .should().dependOnClassesThat().resideInAnyPackage(EXECUTORS, APP)
            .because("the protocol turns lines into typed requests and outcomes into lines; it never runs one")
            .allowEmptyShould(false);

    // Test fixtures are exempt: the OTLP receiver decodes what arrives with opentelemetry-proto.
    public static final ArchRule ONLY_THE_TELEMETRY_ADAPTER_KNOWS_OPENTELEMETRY = noClasses()
            .that().resideOutsideOfPackages(TELEMETRY, TEST_FIXTURES).and().doNotHaveFullyQualifiedName(TELEMETRY_ENTRY)
            .should().dependOnClassesThat().resideInAnyPackage("io.opentelemetry..", TELEMETRY)
            .because("the kernel and the protocol speak only the Telemetry port, and app reaches the adapter in one"
                    + " class behind the config's telemetry section, so with telemetry off no OpenTelemetry class loads")
            .allowEmptyShould(false);

    public static final ArchRule EXECUTORS_DO_NOT_DEPEND_ON_APP = noClasses()
            .that().resideInAPackage(EXECUTORS)
            .should().dependOnClassesThat().resideInAPackage(APP)
            .because("an adapter gets its configuration inside its permit and its constructor, not from the"
                    + " composition root")
            .allowEmptyShould(false);

    // Executors are exempt from their own rule here; EXECUTORS_DO_NOT_KNOW_EACH_OTHER covers them.
    public static final ArchRule ONLY_APP_DEPENDS_ON_EXECUTORS = noClasses()
            .that().resideOutsideOfPackages(APP, EXECUTORS)
            .and(areNotAnExecutorBenchmark())
            .should().dependOnClassesThat().resideInAPackage(EXECUTORS)
            .because("app is the composition root that wires adapters in; nothing else may reach past the"
                    + " ports to a concrete executor")
            .allowEmptyShould(false);

    public static final ArchRule AN_EXECUTOR_MODULE_HAS_EXACTLY_ONE_PUBLIC_CLASS = classes()
            .that().resideInAPackage(EXECUTORS).and().resideOutsideOfPackage(INTERNAL)
            .and().areTopLevelClasses().and().arePublic()
            .should(beTheOnlyPublicClassOfTheirExecutorModule())
            .because("an adapter is one class behind the port; everything else in its module is its own business,"
                    + " so the composition root can reach nothing else (what a library must instantiate by name"
                    + " is public in the module's internal package, which the next rules keep to the module)")
            .allowEmptyShould(false);

    public static final ArchRule AN_EXECUTORS_PUBLIC_NESTED_TYPES_ARE_ITS_API = classes()
            .that().resideInAPackage(EXECUTORS).and().resideOutsideOfPackage(INTERNAL)
            .and().areNestedClasses().and(areReachableFromOutsideTheirPackage())
            .should(beNamedByAPublicSignatureOfTheirAdapter())
            .because("a public nested type is part of the adapter's API only when a public method or constructor of the"
                    + " adapter names it (or it belongs to such a type); any other is an internal class that slipped past"
                    + " the one-public-class rule")
            .allowEmptyShould(false);

    public static final ArchRule AN_EXECUTORS_INTERNAL_PACKAGE_IS_ITS_OWN = noClasses()
            .should(dependOnAnotherModulesInternalPackage())
            .because("an executor's internal package holds what must be public for a library (a socket factory the"
                    + " driver instantiates by name), never an API: only the module's own classes may use it")
            .allowEmptyShould(false);

    // Exempt, each for a reason: test-fixtures is test support by definition and never ships in the
    // gateway; demo (DESIGN §2: it may depend on test-fixtures) runs the fixtures' loopback fakes as its
    // servers and starts its gateway with their GatewayProcess; bench drives packaged gateways with that
    // same GatewayProcess. Neither demo nor bench is in the gateway's jar, and nothing depends on them.
    public static final ArchRule MAIN_CODE_DEPENDS_ON_NO_TEST_CODE = noClasses()
            .that().resideOutsideOfPackages(TEST_FIXTURES, DEMO, BENCH)
            .should().dependOnClassesThat().resideInAnyPackage(TEST_FIXTURES, "org.junit..")
            .because("recording executors, fake servers and JUnit must never be reachable from the gateway")
            .allowEmptyShould(false);

    public static final ArchRule NO_INSTANCEOF_OVER_KINDS_OUTSIDE_A_KINDS_OWN_CODE = noClasses()
            .that(areNotAKindsOwnCode())
            .and(areNotAnExecutorBenchmark())
            .should(checkInstanceofAgainstAKindsOwnType())
            .because("a chain of instanceof over actions, permits or outcomes fails at run time on the kind it forgot;"
                    + " each kind presents itself through its EffectKind, found by type in EffectKinds")
            .allowEmptyShould(false);

    // The journal's boundary (neither the protocol, an executor nor app) is journal/pom.xml's: its
    // dependencies cannot reach them, and its enforcer execution journal-boundary fails the build if one does.

    // Exempt, each for a reason: the executor contract kit in test-fixtures takes its permits from a real
    // engine; bench measures the engine alone. Neither ships in the gateway.
    public static final ArchRule ONLY_APP_CONSTRUCTS_A_POLICY_ENGINE = noClasses()
            .that().resideOutsideOfPackages(APP, POLICY, TEST_FIXTURES, BENCH)
            .should(accessTargetWhere(aConstructorOf(POLICY_ENGINE)))
            .because("the composition root builds the one engine over the loaded policy and hands it to the use case;"
                    + " an engine built elsewhere could decide against another policy")
            .allowEmptyShould(false);

    // Matched by name, so that the self-test's fixture (archfixtures.ReplayListingUpstreams) is judged as the real replay is.
    public static final ArchRule THE_REPLAY_BUILDS_NO_EXECUTOR = noClasses()
            .that().haveSimpleNameStartingWith("Replay").or().haveSimpleNameStartingWith("AuditReplay")
            .should().dependOnClassesThat().haveFullyQualifiedName(ACTION_EXECUTOR)
            .orShould().dependOnClassesThat().haveFullyQualifiedName(DISPATCHER)
            .orShould().dependOnClassesThat().resideInAPackage(EXECUTORS)
            .orShould().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                    com.tngtech.archunit.core.domain.properties.HasName.Predicates.name("listNow")))
            .because("audit replay decides journaled calls again and runs none of them: it holds no executor and starts"
                    + " no upstream server")
            .allowEmptyShould(false);

    private ArchitectureRules() {
    }

    /**
     * Every main class in {@code dev.postern}, whether it comes from a module's classes directory (a reactor
     * build) or from its jar (an installed build). Test classes are left out; third-party classes are
     * never imported because only Postern's package is scanned.
     */
    public static JavaClasses productionClasses() {
        return new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // app's tests as a jar (the demo module runs these rules from it): test classes too.
                .withImportOption(location -> !location.matches(TESTS_JAR))
                .importPackages("dev.postern");
    }

    /**
     * Holds when each executor module ({@code dev.postern.executor.NAME} and below) has one public
     * top-level class; every public class of a module with more is a violation.
     */
    static ArchCondition<JavaClass> beTheOnlyPublicClassOfTheirExecutorModule() {
        return new ArchCondition<>("be the only public class of their executor module") {
            private final Map<String, List<JavaClass>> byModule = new TreeMap<>();

            @Override
            public void init(Collection<JavaClass> all) {
                byModule.clear();
            }

            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                String module = executorModuleOf(javaClass).orElse(javaClass.getPackageName());
                byModule.computeIfAbsent(module, m -> new ArrayList<>()).add(javaClass);
            }

            @Override
            public void finish(ConditionEvents events) {
                byModule.forEach((module, publicClasses) -> publicClasses.forEach(c -> events.add(new SimpleConditionEvent(c,
                        publicClasses.size() == 1, c.getName() + " is one of " + publicClasses.size() + " public classes of "
                                + module + ": " + publicClasses.stream().map(JavaClass::getSimpleName).sorted().toList()))));
            }
        };
    }

    /** {@code dev.postern.executor.NAME} for a class anywhere in that executor module, else empty. */
    private static Optional<String> executorModuleOf(JavaClass javaClass) {
        String[] parts = javaClass.getPackageName().split("\\.");
        if (parts.length < 4 || !parts[0].equals("dev") || !parts[1].equals("postern") || !parts[2].equals("executor")) {
            return Optional.empty();
        }
        return Optional.of(String.join(".", Arrays.copyOf(parts, 4)));
    }

    private static boolean isInAnInternalPackage(JavaClass javaClass) {
        String[] parts = javaClass.getPackageName().split("\\.");
        return executorModuleOf(javaClass).isPresent() && Arrays.asList(parts).subList(4, parts.length).contains("internal");
    }

    /** Public, and so is every class it is nested in: code outside its package can name it. */
    static DescribedPredicate<JavaClass> areReachableFromOutsideTheirPackage() {
        return DescribedPredicate.describe("are public, as is every class they are nested in", c -> {
            for (Optional<JavaClass> t = Optional.of(c); t.isPresent(); t = t.get().getEnclosingClass()) {
                if (!t.get().getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC)) {
                    return false;
                }
            }
            return true;
        });
    }

    /**
     * Holds when a public nested type of an executor class is named by a public method's return or
     * parameter type, or a public constructor's parameter type, of its top-level class; or is nested in
     * or implements a type that is. Generic type arguments are not read, so a type met only as
     * {@code List<T>} must be nested in an API type.
     */
    static ArchCondition<JavaClass> beNamedByAPublicSignatureOfTheirAdapter() {
        return new ArchCondition<>("be named by a public signature of their adapter class") {
            @Override
            public void check(JavaClass nested, ConditionEvents events) {
                boolean api = isApi(nested, new java.util.HashSet<>());
                events.add(new SimpleConditionEvent(nested, api, nested.getName() + (api ? " is" : " is not")
                        + " named by a public signature of " + topLevel(nested).getName()));
            }

            private boolean isApi(JavaClass type, Set<String> seen) {
                if (!seen.add(type.getName())) {
                    return false;
                }
                JavaClass adapter = topLevel(type);
                boolean named = adapter.getMethods().stream()
                        .filter(m -> m.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC))
                        .anyMatch(m -> m.getRawReturnType().equals(type) || m.getRawParameterTypes().contains(type))
                        || adapter.getConstructors().stream()
                        .filter(c -> c.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC))
                        .anyMatch(c -> c.getRawParameterTypes().contains(type));
                if (named) {
                    return true;
                }
                Optional<JavaClass> enclosing = type.getEnclosingClass();
                if (enclosing.isPresent() && !enclosing.get().isTopLevelClass() && isApi(enclosing.get(), seen)) {
                    return true;
                }
                return type.getRawInterfaces().stream().anyMatch(i -> !i.isTopLevelClass() && isApi(i, seen));
            }

            private JavaClass topLevel(JavaClass type) {
                JavaClass t = type;
                while (t.getEnclosingClass().isPresent()) {
                    t = t.getEnclosingClass().get();
                }
                return t;
            }
        };
    }

    /** Fails for each dependency on a class in an executor's internal package from outside that executor module. */
    static ArchCondition<JavaClass> dependOnAnotherModulesInternalPackage() {
        return new ArchCondition<>("depend on an executor module's internal package from outside that module") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                Optional<String> own = executorModuleOf(origin);
                origin.getDirectDependenciesFromSelf().forEach(d -> {
                    JavaClass target = d.getTargetClass();
                    if (isInAnInternalPackage(target) && !own.equals(executorModuleOf(target))) {
                        events.add(SimpleConditionEvent.satisfied(origin, d.getDescription()));
                    }
                });
            }
        };
    }

    /** Every rule field of this class by field name, in declaration order. */
    public static Map<String, ArchRule> all() {
        Map<String, ArchRule> rules = new LinkedHashMap<>();
        for (Field field : ArchitectureRules.class.getDeclaredFields()) {
            if (!ArchRule.class.isAssignableFrom(field.getType())) {
                continue;
            }
            int modifiers = field.getModifiers();
            if (!Modifier.isPublic(modifiers) || !Modifier.isStatic(modifiers) || !Modifier.isFinal(modifiers)) {
                throw new IllegalStateException("rule field " + field.getName() + " must be public static final");
            }
            try {
                rules.put(field.getName(), (ArchRule) field.get(null));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return rules;
    }

    /**
     * No class but {@code guard} (and the classes nested in it) reads {@code System.out} or {@code FileDescriptor.out} or calls
     * {@code System.setOut}; {@code System.err} stays free for diagnostics. One exemption, narrower: {@code upstreamFixture}
     * alone (not its nested classes) may read {@code FileDescriptor.out}, never {@code System.out} nor {@code System.setOut}.
     * It is test-fixtures' hostile upstream MCP server, a main class run only as a child process of a test, whose own
     * stdout is the protocol stream it must write byte by byte; it never runs inside a gateway (MAIN_CODE_DEPENDS_ON_NO_TEST_CODE).
     * Both are parameters only so the self-test can prove each exemption is exact.
     */
    static ArchRule onlyTheGuardTouchesTheProtocolStream(String guard, String upstreamFixture) {
        return noClasses()
                .that(areNeither(guard))
                .should(accessField(System.class, "out")
                        .or(accessTargetWhere(theDescriptorOutReadOutside(upstreamFixture)))
                        .or(callMethod(System.class, "setOut", PrintStream.class)))
                .because("stdout carries only complete protocol messages; " + guard + " claims it at start-up"
                        + " and hands the transport a private stream (" + upstreamFixture + ", a test upstream run as"
                        + " a child process, writes its own)")
                .allowEmptyShould(false);
    }

    private static DescribedPredicate<JavaAccess<?>> theDescriptorOutReadOutside(String exempt) {
        return DescribedPredicate.describe("a read of " + FileDescriptor.class.getName() + ".out outside " + exempt,
                access -> access.getTargetOwner().isEquivalentTo(FileDescriptor.class)
                        && access.getTarget().getName().equals("out")
                        && !access.getOriginOwner().getName().equals(exempt));
    }

    /**
     * No class but {@code dispatcher} (and the classes nested in it) calls or takes a reference to {@code ActionExecutor.execute}, except the
     * test fixtures' executor contract tests, which must call the executor they test and never ship.
     */
    static ArchRule onlyTheDispatcherCallsAnExecutor(String dispatcher) {
        return noClasses()
                .that(areNeither(dispatcher))
                .and().resideOutsideOfPackage(TEST_FIXTURES)
                .and(areNotAnExecutorBenchmark())
                .should(accessTargetWhere(executeOf(ACTION_EXECUTOR)))
                .because("an executor runs only with the permit the dispatcher just received, after the intent row"
                        + " is on disk")
                .allowEmptyShould(false);
    }

    /**
     * Exempt from the executor rules, as test fixtures' contract kit is: a JMH benchmark of one executor
     * in {@code bench} ({@code dev.postern.bench.*ExecutorBenchmark}, such as {@code SqlExecutorBenchmark}),
     * which takes a permit from the real policy engine and times that kind's executor beside its library's
     * direct call. It is that kind's own measuring code; bench is not in the gateway's jar and nothing
     * depends on it. Any other bench class keeps every rule.
     */
    private static DescribedPredicate<JavaClass> areNotAnExecutorBenchmark() {
        return DescribedPredicate.describe("are not an executor benchmark in " + BENCH,
                javaClass -> !(javaClass.getPackageName().startsWith("dev.postern.bench")
                        && selfOrEnclosing(javaClass, c -> c.getSimpleName().endsWith("ExecutorBenchmark"))));
    }

    /** The one exempt class and the classes nested in it, which share its source file and its purpose. */
    private static DescribedPredicate<JavaClass> areNeither(String exempt) {
        return DescribedPredicate.describe("are neither " + exempt + " nor nested in it",
                javaClass -> !javaClass.getName().equals(exempt) && !javaClass.getName().startsWith(exempt + "$"));
    }

    /** Everything but a kind's own code: its kernel types, its kernel rules, its EffectKind, its executor module. */
    private static DescribedPredicate<JavaClass> areNotAKindsOwnCode() {
        return DescribedPredicate.describe("are not a kind's own code (its kernel types and rules, its "
                        + EFFECT_KIND + ", its executor)",
                javaClass -> !javaClass.getPackageName().startsWith("dev.postern.executor.")
                        && !selfOrEnclosing(javaClass, c -> assignable(c, EFFECT_KIND) || assignable(c, KERNEL_RULES)
                                || isAKindsOwnType(c)));
    }

    private static boolean selfOrEnclosing(JavaClass javaClass, java.util.function.Predicate<JavaClass> test) {
        for (Optional<JavaClass> c = Optional.of(javaClass); c.isPresent(); c = c.get().getEnclosingClass()) {
            if (test.test(c.get())) {
                return true;
            }
        }
        return false;
    }

    /** A permitted subtype of Action, AuthorizedAction or Outcome that belongs to one kind (not ExecutionFailure). */
    private static boolean isAKindsOwnType(JavaClass type) {
        return !Set.of(ACTION, AUTHORIZED_ACTION, OUTCOME, EXECUTION_FAILURE).contains(type.getName())
                && (assignable(type, ACTION) || assignable(type, AUTHORIZED_ACTION) || assignable(type, OUTCOME));
    }

    /** Assignability, asking the loaded class when the imported one does not know its supertypes (not imported). */
    private static boolean assignable(JavaClass type, String target) {
        if (type.isAssignableTo(target)) {
            return true;
        }
        try {
            ClassLoader loader = ArchitectureRules.class.getClassLoader();
            return Class.forName(target, false, loader).isAssignableFrom(Class.forName(type.getName(), false, loader));
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static ArchCondition<JavaClass> checkInstanceofAgainstAKindsOwnType() {
        return new ArchCondition<>("check instanceof against one kind's action, permit or outcome type") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                for (InstanceofCheck check : javaClass.getInstanceofChecks()) {
                    if (isAKindsOwnType(check.getRawType())) {
                        events.add(SimpleConditionEvent.satisfied(javaClass, javaClass.getName() + " checks instanceof "
                                + check.getRawType().getName() + " in " + check.getSourceCodeLocation()));
                    }
                }
            }
        };
    }

    private static DescribedPredicate<JavaAccess<?>> aConstructorOf(String type) {
        return DescribedPredicate.describe("a constructor of " + type + " or of a subclass",
                access -> access.getTarget().getName().equals(JavaConstructor.CONSTRUCTOR_NAME)
                        && access.getTargetOwner().isAssignableTo(type));
    }

    private static DescribedPredicate<JavaAccess<?>> executeOf(String executorType) {
        // The compiler's bridge method execute(AuthorizedAction, ..) forwarding to the typed one is not a call site.
        return DescribedPredicate.describe("execute(..) of an " + executorType,
                access -> access.getTarget().getName().equals("execute")
                        && access.getTargetOwner().isAssignableTo(executorType)
                        && !access.getOrigin().getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.BRIDGE));
    }

    private static DescribedPredicate<JavaClass> aTrustShortcut() {
        return DescribedPredicate.describe("are trust shortcuts " + TRUST_SHORTCUTS,
                javaClass -> TRUST_SHORTCUTS.contains(javaClass.getName()));
    }

    /**
     * Passes a class that was loaded from the same jar or classes directory as {@code anchor}, which is
     * loaded (not initialized) on first use to find that location.
     */
    private static ArchCondition<JavaClass> comeFromTheCodeSourceOf(String anchor) {
        return new ArchCondition<>("come from the jar or classes directory of " + anchor) {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                Path expected = codeSourceOf(anchor);
                Optional<Path> actual = codeSourceOf(javaClass);
                boolean satisfied = actual.isPresent() && actual.get().equals(expected);
                String message = "Class <" + javaClass.getName() + "> comes from "
                        + actual.map(Path::toString).orElse("an unknown location")
                        + (satisfied ? ", like " : ", not from ") + anchor + "'s " + expected;
                events.add(new SimpleConditionEvent(javaClass, satisfied, message));
            }
        };
    }

    private static Path codeSourceOf(String className) {
        try {
            Class<?> loaded = Class.forName(className, false, ArchitectureRules.class.getClassLoader());
            CodeSource source = loaded.getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                throw new IllegalStateException(className + " has no code source to compare against");
            }
            return Paths.get(source.getLocation().toURI()).toAbsolutePath().normalize();
        } catch (ClassNotFoundException | URISyntaxException e) {
            throw new IllegalStateException("cannot locate " + className, e);
        }
    }

    /** The jar or classes directory an imported class came from: {@code jar:file:/x.jar!/a/B.class} gives /x.jar. */
    static Optional<Path> codeSourceOf(JavaClass javaClass) {
        if (javaClass.getSource().isEmpty()) {
            return Optional.empty();
        }
        String uri = javaClass.getSource().get().getUri().toString();
        String root;
        if (uri.startsWith("jar:") && uri.contains("!/")) {
            root = uri.substring("jar:".length(), uri.indexOf("!/"));
        } else {
            String suffix = javaClass.getName().replace('.', '/') + ".class";
            if (!uri.endsWith(suffix)) {
                return Optional.empty();
            }
            root = uri.substring(0, uri.length() - suffix.length());
        }
        try {
            return Optional.of(Paths.get(URI.create(root)).toAbsolutePath().normalize());
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return Optional.empty();
        }
    }
}
