package dev.postern.app.architecture;

import dev.postern.executor.mcp.archfixtures.UpstreamExecutorReadingJson;
import dev.postern.executor.mcp.archfixtures.UpstreamExecutorUsingFrames;
import dev.postern.executor.mcp.archfixtures.UpstreamExecutorWritingFrames;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.core.importer.Locations;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import dev.postern.app.Gateway;
import dev.postern.app.archfixtures.AppUsingTestFixtures;
import dev.postern.app.archfixtures.GatewayTracingDirectly;
import dev.postern.app.archfixtures.ReplayListingUpstreams;
import dev.postern.app.archfixtures.Wiring;
import dev.postern.app.archfixtures.WiringReachingInternal;
import dev.postern.journal.FileAuditJournal;
import dev.postern.archfixtures.ExecutorCaller;
import dev.postern.archfixtures.ExecutorInspector;
import dev.postern.archfixtures.ExecutorReferencer;
import dev.postern.archfixtures.FailureCheck;
import dev.postern.archfixtures.KindSwitch;
import dev.postern.archfixtures.PermitReader;
import dev.postern.archfixtures.StderrWriter;
import dev.postern.archfixtures.StrayStdoutWriter;
import dev.postern.archfixtures.trust.AcceptsAnyHostBasedLogin;
import dev.postern.archfixtures.trust.AcceptsAnyPassword;
import dev.postern.archfixtures.trust.AcceptsAnyPublicKey;
import dev.postern.archfixtures.trust.AcceptsAnyServerKey;
import dev.postern.archfixtures.trust.SkipsHostnameCheck;
import dev.postern.archfixtures.trust.TrustsAnyCertificate;
import dev.postern.archfixtures.trust.TrustsSelfSignedCertificates;
import dev.postern.bench.archfixtures.BenchUsingTestFixtures;
import dev.postern.demo.archfixtures.DemoUsingTestFixtures;
import dev.postern.executor.http.archfixtures.HttpExecutor;
import dev.postern.executor.http.archfixtures.HttpExecutorCallingSsh;
import dev.postern.executor.http.archfixtures.HttpExecutorNamingItsInternal;
import dev.postern.executor.http.archfixtures.HttpExecutorWithNestedTypes;
import dev.postern.executor.http.archfixtures.internal.HttpSocketFactory;
import dev.postern.executor.http.archfixtures.HttpExecutorReadingJson;
import dev.postern.executor.http.archfixtures.HttpExecutorUsingProtocol;
import dev.postern.executor.ssh.archfixtures.SshExecutor;
import dev.postern.executor.ssh.archfixtures.SshExecutorReadingConfig;
import dev.postern.executor.ssh.archfixtures.SshExecutorUsingHttpInternal;
import dev.postern.executor.ssh.archfixtures.SshExecutorUsingTransport;
import dev.postern.executor.ssh.archfixtures.SshExecutorValidatingSchema;
import dev.postern.fixtures.archfixtures.FixtureAssertions;
import dev.postern.fixtures.archfixtures.FixtureOpeningStdout;
import dev.postern.fixtures.archfixtures.FixtureContractCallingExecute;
import dev.postern.fixtures.archfixtures.FixtureServerAcceptingAnyLogin;
import dev.postern.fixtures.archfixtures.FixtureUsingRealExecutor;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.AuthorizedHttpRequest;
import dev.postern.policy.AuthorizedSshCommand;
import dev.postern.policy.Decision;
import dev.postern.policy.PolicyEngine;
import dev.postern.policy.archfixtures.PolicyCallingHttpClient;
import dev.postern.policy.archfixtures.PolicyKnowingProtocol;
import dev.postern.policy.archfixtures.PolicyOpeningSsh;
import dev.postern.policy.archfixtures.PolicyReadingJson;
import dev.postern.policy.archfixtures.PolicyStartingTelemetry;
import dev.postern.policy.archfixtures.SplitPackageIntruder;
import dev.postern.policy.outcome.HttpResponseOutcome;
import dev.postern.policy.outcome.SshExitOutcome;
import dev.postern.protocol.archfixtures.ProtocolAssertingWithJUnit;
import dev.postern.protocol.archfixtures.ProtocolCallingExecutor;
import dev.postern.protocol.archfixtures.ProtocolDecidingItself;
import dev.postern.protocol.archfixtures.ProtocolReachingIntoApp;
import dev.postern.protocol.archfixtures.ToolBinder;
import dev.postern.protocol.tools.EffectKinds;
import dev.postern.protocol.tools.HttpRequestKind;
import dev.postern.protocol.tools.SshExecKind;
import dev.postern.protocol.tools.ToolResults;
import dev.postern.transport.archfixtures.LineFramer;
import dev.postern.transport.archfixtures.TransportKnowingPolicy;
import dev.postern.transport.archfixtures.TransportParsingJson;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Proves that each rule of {@link ArchitectureRules} catches a deliberate violation and names exactly the
 * violating classes, and holds on compliant classes, so no rule can silently check nothing. Fixtures sit in
 * the real module packages under test sources and are imported class by class; real policy classes serve
 * as compliant kernel code.
 */
class ArchitectureRulesSelfTest {

    @TempDir
    static Path forgeries;

    /** One rule, the classes that break it, which of them it must name, and classes that keep it. */
    record Case(ArchRule rule, Supplier<JavaClasses> violating, Set<String> violators, Supplier<JavaClasses> compliant) {
        Case {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(violating, "violating");
            Objects.requireNonNull(compliant, "compliant");
            if (violators.isEmpty()) {
                throw new IllegalArgumentException("violators: a case must expect at least one violating class");
            }
        }

        @Override
        public String toString() {
            return nameOf(rule);
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case(ArchitectureRules.ONLY_POLICY_CONSTRUCTS_AN_AUTHORIZED_ACTION,
                        () -> classes(Set.of(ForgedPermits.compile(forgeries)), PolicyEngine.class,
                                policyClass("HttpRules"), policyClass("SshRules"), PermitReader.class,
                                AuthorizedAction.class, AuthorizedHttpRequest.class, AuthorizedSshCommand.class),
                        Set.of(ForgedPermits.FORGER, ForgedPermits.REFERENCER, ForgedPermits.SUBCLASS),
                        () -> classes(PolicyEngine.class, policyClass("HttpRules"), policyClass("SshRules"),
                                PermitReader.class, Wiring.class, AuthorizedAction.class, AuthorizedHttpRequest.class,
                                AuthorizedSshCommand.class)),
                new Case(ArchitectureRules.NO_CLASS_OUTSIDE_THE_POLICY_MODULE_LIVES_IN_ITS_PACKAGES,
                        () -> classes(SplitPackageIntruder.class, AuthorizedAction.class, PolicyEngine.class),
                        names(SplitPackageIntruder.class),
                        () -> classes(AuthorizedAction.class, AuthorizedHttpRequest.class, PolicyEngine.class,
                                Decision.class)),
                new Case(ArchitectureRules.POLICY_DEPENDS_ON_THE_JDK_ONLY,
                        () -> classes(PolicyReadingJson.class, PolicyCallingHttpClient.class,
                                PolicyKnowingProtocol.class, PolicyEngine.class, AuthorizedHttpRequest.class),
                        names(PolicyReadingJson.class, PolicyCallingHttpClient.class, PolicyKnowingProtocol.class),
                        ArchitectureRulesSelfTest::kernel),
                new Case(ArchitectureRules.POLICY_KNOWS_NO_ADAPTER_LIBRARY,
                        () -> classes(PolicyCallingHttpClient.class, PolicyOpeningSsh.class, PolicyReadingJson.class,
                                PolicyEngine.class),
                        names(PolicyCallingHttpClient.class, PolicyOpeningSsh.class),
                        ArchitectureRulesSelfTest::kernel),
                new Case(ArchitectureRules.TRANSPORT_DEPENDS_ON_THE_JDK_ONLY,
                        () -> classes(TransportParsingJson.class, TransportKnowingPolicy.class, LineFramer.class),
                        names(TransportParsingJson.class, TransportKnowingPolicy.class),
                        () -> classes(LineFramer.class)),
                new Case(ArchitectureRules.EXECUTORS_NEVER_SEE_RAW_JSON,
                        () -> classes(HttpExecutorReadingJson.class, HttpExecutorUsingProtocol.class,
                                SshExecutorValidatingSchema.class, UpstreamExecutorReadingJson.class,
                                HttpExecutor.class, SshExecutor.class, UpstreamExecutorUsingFrames.class),
                        names(HttpExecutorReadingJson.class, HttpExecutorUsingProtocol.class,
                                SshExecutorValidatingSchema.class, UpstreamExecutorReadingJson.class),
                        () -> classes(HttpExecutor.class, SshExecutor.class, UpstreamExecutorUsingFrames.class)),
                new Case(ArchitectureRules.ONLY_THE_UPSTREAM_EXECUTOR_READS_FRAMES,
                        () -> classes(SshExecutorUsingTransport.class, SshExecutor.class, UpstreamExecutorUsingFrames.class),
                        names(SshExecutorUsingTransport.class),
                        () -> classes(SshExecutor.class, UpstreamExecutorUsingFrames.class)),
                new Case(ArchitectureRules.THE_UPSTREAM_EXECUTOR_READS_FRAMES_WITH_THE_GATEWAYS_OWN_READER,
                        () -> classes(UpstreamExecutorWritingFrames.class, UpstreamExecutorUsingFrames.class),
                        names(UpstreamExecutorWritingFrames.class),
                        () -> classes(UpstreamExecutorUsingFrames.class)),
                new Case(ArchitectureRules.EXECUTORS_DO_NOT_KNOW_EACH_OTHER,
                        () -> classes(HttpExecutorCallingSsh.class, HttpExecutor.class, SshExecutor.class),
                        names(HttpExecutorCallingSsh.class),
                        () -> classes(HttpExecutor.class, SshExecutor.class)),
                new Case(ArchitectureRules.ONLY_THE_STDOUT_GUARD_TOUCHES_THE_PROTOCOL_STREAM,
                        () -> classes(StrayStdoutWriter.class, StderrWriter.class),
                        names(StrayStdoutWriter.class),
                        () -> classes(StderrWriter.class)),
                new Case(ArchitectureRules.ONLY_THE_DISPATCHER_CALLS_AN_EXECUTOR,
                        () -> classes(ExecutorCaller.class, ExecutorCaller.Worker.class, ExecutorReferencer.class,
                                ExecutorInspector.class, FixtureContractCallingExecute.class),
                        names(ExecutorCaller.class, ExecutorCaller.Worker.class, ExecutorReferencer.class),
                        () -> classes(ExecutorInspector.class, FixtureContractCallingExecute.class)),
                new Case(ArchitectureRules.TRUST_SHORTCUTS_ARE_USED_ONLY_IN_TEST_FIXTURES,
                        () -> classes(AcceptsAnyServerKey.class, AcceptsAnyPublicKey.class, AcceptsAnyPassword.class,
                                AcceptsAnyHostBasedLogin.class, TrustsAnyCertificate.class,
                                TrustsSelfSignedCertificates.class, SkipsHostnameCheck.class,
                                FixtureServerAcceptingAnyLogin.class, HttpExecutor.class),
                        names(AcceptsAnyServerKey.class, AcceptsAnyPublicKey.class, AcceptsAnyPassword.class,
                                AcceptsAnyHostBasedLogin.class, TrustsAnyCertificate.class,
                                TrustsSelfSignedCertificates.class, SkipsHostnameCheck.class),
                        () -> classes(FixtureServerAcceptingAnyLogin.class, HttpExecutor.class, SshExecutor.class)),
                new Case(ArchitectureRules.PROTOCOL_DEPENDS_ON_NEITHER_EXECUTORS_NOR_APP,
                        () -> classes(ProtocolCallingExecutor.class, ProtocolReachingIntoApp.class, ToolBinder.class),
                        names(ProtocolCallingExecutor.class, ProtocolReachingIntoApp.class),
                        () -> classes(ToolBinder.class)),
                new Case(ArchitectureRules.ONLY_THE_TELEMETRY_ADAPTER_KNOWS_OPENTELEMETRY,
                        () -> classes(GatewayTracingDirectly.class, PolicyStartingTelemetry.class, Wiring.class,
                                dev.postern.telemetry.OtlpTelemetry.class),
                        names(GatewayTracingDirectly.class, PolicyStartingTelemetry.class),
                        () -> classes(Wiring.class, dev.postern.telemetry.OtlpTelemetry.class)),
                new Case(ArchitectureRules.EXECUTORS_DO_NOT_DEPEND_ON_APP,
                        () -> classes(SshExecutorReadingConfig.class, SshExecutor.class, HttpExecutor.class),
                        names(SshExecutorReadingConfig.class),
                        () -> classes(SshExecutor.class, HttpExecutor.class)),
                new Case(ArchitectureRules.ONLY_APP_DEPENDS_ON_EXECUTORS,
                        () -> classes(ProtocolCallingExecutor.class, FixtureUsingRealExecutor.class, Wiring.class,
                                HttpExecutor.class, ToolBinder.class),
                        names(ProtocolCallingExecutor.class, FixtureUsingRealExecutor.class),
                        () -> classes(Wiring.class, HttpExecutor.class, SshExecutor.class, ToolBinder.class)),
                new Case(ArchitectureRules.AN_EXECUTOR_MODULE_HAS_EXACTLY_ONE_PUBLIC_CLASS,
                        () -> classes(HttpExecutor.class, HttpExecutorCallingSsh.class, SshExecutor.class),
                        names(HttpExecutor.class, HttpExecutorCallingSsh.class),
                        // HttpSocketFactory is public too, in the module's internal package, which does not count.
                        () -> classes(HttpExecutor.class, SshExecutor.class, HttpSocketFactory.class)),
                new Case(ArchitectureRules.AN_EXECUTORS_PUBLIC_NESTED_TYPES_ARE_ITS_API,
                        () -> classes(HttpExecutorWithNestedTypes.class, HttpExecutorWithNestedTypes.Loose.class,
                                HttpExecutorWithNestedTypes.Probe.class),
                        names(HttpExecutorWithNestedTypes.Loose.class),
                        () -> classes(HttpExecutorWithNestedTypes.class, HttpExecutorWithNestedTypes.Probe.class,
                                HttpExecutorWithNestedTypes.Probe.Found.class, HttpExecutorWithNestedTypes.Probe.Step.class,
                                HttpExecutorWithNestedTypes.Options.class)),
                new Case(ArchitectureRules.AN_EXECUTORS_INTERNAL_PACKAGE_IS_ITS_OWN,
                        () -> classes(SshExecutorUsingHttpInternal.class, WiringReachingInternal.class,
                                HttpExecutorNamingItsInternal.class, HttpSocketFactory.class),
                        names(SshExecutorUsingHttpInternal.class, WiringReachingInternal.class),
                        () -> classes(HttpExecutorNamingItsInternal.class, HttpSocketFactory.class, HttpExecutor.class,
                                SshExecutor.class, Wiring.class)),
                new Case(ArchitectureRules.MAIN_CODE_DEPENDS_ON_NO_TEST_CODE,
                        () -> classes(AppUsingTestFixtures.class, ProtocolAssertingWithJUnit.class,
                                FixtureAssertions.class, Wiring.class, DemoUsingTestFixtures.class),
                        names(AppUsingTestFixtures.class, ProtocolAssertingWithJUnit.class),
                        () -> classes(FixtureAssertions.class, Wiring.class, DemoUsingTestFixtures.class,
                                BenchUsingTestFixtures.class)),
                new Case(ArchitectureRules.NO_INSTANCEOF_OVER_KINDS_OUTSIDE_A_KINDS_OWN_CODE,
                        () -> classes(KindSwitch.class, FailureCheck.class, HttpRequestKind.class, EffectKinds.class),
                        names(KindSwitch.class),
                        () -> classes(FailureCheck.class, HttpRequestKind.class, SshExecKind.class, EffectKinds.class,
                                ToolResults.class, FileAuditJournal.class, HttpResponseOutcome.class, SshExitOutcome.class,
                                policyClass("HttpRules"), policyClass("SshRules"), PolicyEngine.class)),
                new Case(ArchitectureRules.ONLY_APP_CONSTRUCTS_A_POLICY_ENGINE,
                        () -> classes(ProtocolDecidingItself.class, Gateway.class, ToolBinder.class),
                        names(ProtocolDecidingItself.class),
                        () -> classes(Gateway.class, ToolBinder.class, PolicyEngine.class)),
                new Case(ArchitectureRules.THE_REPLAY_BUILDS_NO_EXECUTOR,
                        () -> classes(ReplayListingUpstreams.class, replayClass("Replay"), replayClass("AuditReplayCommand")),
                        names(ReplayListingUpstreams.class),
                        () -> classes(replayClass("Replay"), replayClass("AuditReplayCommand"), Gateway.class)));
    }

    /** A package-private class of the command line, by its simple name. */
    private static Class<?> replayClass(String simpleName) {
        try {
            return Class.forName("dev.postern.app.cli." + simpleName);
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void ruleFailsOnItsFixtureNamingExactlyTheViolators(Case c) {
        JavaClasses imported = c.violating().get();
        EvaluationResult result = c.rule().evaluate(imported);

        assertTrue(result.hasViolation(), () -> nameOf(c.rule()) + " passed on its violations");
        assertEquals(new TreeSet<>(c.violators()), violators(result, imported),
                () -> String.join("\n", result.getFailureReport().getDetails()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void ruleHoldsOnCompliantClasses(Case c) {
        JavaClasses imported = c.compliant().get();
        EvaluationResult result = c.rule().evaluate(imported);

        assertFalse(result.hasViolation(), () -> String.join("\n", result.getFailureReport().getDetails()));
    }

    @Test
    void everyRuleHasASelfTestCase() {
        Set<ArchRule> tested = Collections.newSetFromMap(new IdentityHashMap<>());
        cases().forEach(c -> assertTrue(tested.add(c.rule()), () -> "two cases for " + c));
        List<String> untested = ArchitectureRules.all().entrySet().stream()
                .filter(rule -> !tested.contains(rule.getValue()))
                .map(Map.Entry::getKey)
                .collect(Collectors.toList());

        assertEquals(List.of(), untested);
        assertEquals(ArchitectureTest.RULE_COUNT, tested.size());
    }

    @Test
    void aRuleWithNothingToCheckFailsInsteadOfPassing() {
        JavaClasses nothingInItsPackage = classes(StderrWriter.class);

        AssertionError failure = assertThrows(AssertionError.class,
                () -> ArchitectureRules.EXECUTORS_NEVER_SEE_RAW_JSON.check(nothingInItsPackage));

        assertTrue(failure.getMessage().contains("failed to check any classes"), failure::getMessage);
    }

    @Test
    void theStdoutRuleCatchesTheFieldTheDescriptorAndTheRedirect() {
        EvaluationResult result = ArchitectureRules.ONLY_THE_STDOUT_GUARD_TOUCHES_THE_PROTOCOL_STREAM
                .evaluate(classes(StrayStdoutWriter.class));
        List<String> details = result.getFailureReport().getDetails();

        assertEquals(3, details.size(), () -> String.join("\n", details));
        assertTrue(details.stream().anyMatch(detail -> detail.contains("printsDirectly")), details::toString);
        assertTrue(details.stream().anyMatch(detail -> detail.contains("claimsTheDescriptor")), details::toString);
        assertTrue(details.stream().anyMatch(detail -> detail.contains("redirects")), details::toString);
    }

    @Test
    void theStdoutGuardAloneIsExempt() {
        ArchRule guardedByTheStrayWriter = ArchitectureRules.onlyTheGuardTouchesTheProtocolStream(
                StrayStdoutWriter.class.getName(), ArchitectureRules.HOSTILE_UPSTREAM);

        assertFalse(guardedByTheStrayWriter.evaluate(classes(StrayStdoutWriter.class, StderrWriter.class))
                .hasViolation());
        assertTrue(ArchitectureRules.ONLY_THE_STDOUT_GUARD_TOUCHES_THE_PROTOCOL_STREAM.getDescription()
                .contains(ArchitectureRules.STDOUT_GUARD));
    }

    @Test
    void theUpstreamFixtureMayOpenTheDescriptorButNeitherReadSystemOutNorRedirectIt() {
        ArchRule strayWriterAsTheFixture = ArchitectureRules.onlyTheGuardTouchesTheProtocolStream(
                ArchitectureRules.STDOUT_GUARD, StrayStdoutWriter.class.getName());
        List<String> details = strayWriterAsTheFixture.evaluate(classes(StrayStdoutWriter.class))
                .getFailureReport().getDetails();

        assertEquals(2, details.size(), () -> String.join("\n", details));
        assertTrue(details.stream().anyMatch(detail -> detail.contains("printsDirectly")), details::toString);
        assertTrue(details.stream().anyMatch(detail -> detail.contains("redirects")), details::toString);
        assertTrue(ArchitectureRules.ONLY_THE_STDOUT_GUARD_TOUCHES_THE_PROTOCOL_STREAM.getDescription()
                .contains(ArchitectureRules.HOSTILE_UPSTREAM));
    }

    @Test
    void anyOtherTestFixtureThatOpensTheDescriptorBreaksTheStdoutRule() {
        List<String> details = ArchitectureRules.ONLY_THE_STDOUT_GUARD_TOUCHES_THE_PROTOCOL_STREAM
                .evaluate(classes(FixtureOpeningStdout.class)).getFailureReport().getDetails();

        assertEquals(1, details.size(), () -> String.join("\n", details));
        assertTrue(details.get(0).contains("claimsTheDescriptor"), details::toString);
    }

    @Test
    void theDispatcherAndItsNestedClassesAloneAreExempt() {
        ArchRule dispatchedByTheCaller =
                ArchitectureRules.onlyTheDispatcherCallsAnExecutor(ExecutorCaller.class.getName());
        JavaClasses imported = classes(ExecutorCaller.class, ExecutorCaller.Worker.class, ExecutorReferencer.class,
                ExecutorInspector.class);

        assertEquals(new TreeSet<>(names(ExecutorReferencer.class)),
                violators(dispatchedByTheCaller.evaluate(imported), imported));
        assertTrue(ArchitectureRules.ONLY_THE_DISPATCHER_CALLS_AN_EXECUTOR.getDescription()
                .contains(ArchitectureRules.DISPATCHER));
    }

    @Test
    void aClassFromAnotherJarIsToldApartFromThePolicyJar() {
        JavaClass kernel = classes(AuthorizedAction.class).get(AuthorizedAction.class);
        JavaClass intruder = classes(SplitPackageIntruder.class).get(SplitPackageIntruder.class);

        assertTrue(ArchitectureRules.codeSourceOf(kernel).isPresent());
        assertTrue(ArchitectureRules.codeSourceOf(intruder).isPresent());
        assertFalse(ArchitectureRules.codeSourceOf(kernel).equals(ArchitectureRules.codeSourceOf(intruder)));
    }

    /**
     * The class each violation is reported against: of the imported classes, the one named first in the
     * detail line (ArchUnit starts each line with the violating class or member), the longest on a tie.
     */
    static Set<String> violators(EvaluationResult result, JavaClasses imported) {
        List<String> names = new ArrayList<>();
        imported.forEach(javaClass -> names.add(javaClass.getName()));
        Set<String> found = new TreeSet<>();
        for (String detail : result.getFailureReport().getDetails()) {
            String first = null;
            int firstAt = Integer.MAX_VALUE;
            for (String name : names) {
                int at = indexOfName(detail, name);
                if (at >= 0 && (at < firstAt || (at == firstAt && name.length() > first.length()))) {
                    first = name;
                    firstAt = at;
                }
            }
            if (first == null) {
                throw new AssertionError("no imported class named in: " + detail);
            }
            found.add(first);
        }
        return found;
    }

    private static int indexOfName(String text, String name) {
        for (int at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
            int end = at + name.length();
            if (end == text.length() || !Character.isJavaIdentifierPart(text.charAt(end))
                    || text.charAt(end) == '$') {
                return at;
            }
        }
        return -1;
    }

    private static String nameOf(ArchRule rule) {
        return ArchitectureRules.all().entrySet().stream()
                .filter(entry -> entry.getValue() == rule)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(rule.getDescription());
    }

    private static JavaClasses kernel() {
        return classes(PolicyEngine.class, policyClass("HttpRules"), policyClass("SshRules"), AuthorizedAction.class,
                AuthorizedHttpRequest.class, Decision.class);
    }

    /** A package-private class of the real policy kernel, which this package cannot name in code. */
    private static Class<?> policyClass(String simpleName) {
        try {
            return Class.forName("dev.postern.policy." + simpleName, false,
                    ArchitectureRulesSelfTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JavaClasses classes(Class<?>... classes) {
        return new ClassFileImporter().importClasses(classes);
    }

    private static JavaClasses classes(Set<Location> extra, Class<?>... classes) {
        Set<Location> locations = new HashSet<>(extra);
        for (Class<?> type : classes) {
            locations.addAll(Locations.ofClass(type));
        }
        return new ClassFileImporter().importLocations(locations);
    }

    private static Set<String> names(Class<?>... classes) {
        return Stream.of(classes).map(Class::getName).collect(Collectors.toSet());
    }
}
