package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.app.check.HttpTargetCheck;
import dev.postern.app.check.KindCheck;
import dev.postern.app.check.SqlDatabaseCheck;
import dev.postern.app.config.HttpSection;
import dev.postern.app.config.SqlSection;
import dev.postern.executor.sql.SqlActionExecutor;

import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.AuthorizedSqlStatement;
import dev.postern.policy.action.Action;
import dev.postern.policy.model.Allowance;
import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.Outcome;
import dev.postern.protocol.tools.EffectKind;
import dev.postern.protocol.tools.EffectKinds;
import dev.postern.protocol.tools.SqlQueryKind;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The registered kinds against the kernel's sealed types: every permitted action, permit, outcome and
 * allowance belongs to exactly the one registered kind that presents it, and no kind presents a type
 * the kernel does not permit. Fails when a kind is added to the kernel but not registered in
 * {@link Gateway#KINDS}, or registered with the wrong types; and every registered kind names its deep
 * checks, for its own allowances, or declares in the list below that it has none.
 */
class RegisteredKindsTest {
    private static final EffectKinds KINDS = Gateway.kinds();

    @ParameterizedTest(name = "{0}")
    @ValueSource(classes = {Action.class, AuthorizedAction.class, Outcome.class, Allowance.class})
    void everyPermittedSubclassBelongsToARegisteredKind(Class<?> sealed) {
        assertTrue(sealed.isSealed(), sealed + " is no longer sealed; the kinds can no longer be enumerated");
        for (Class<?> type : sealed.getPermittedSubclasses()) {
            if (type == ExecutionFailure.class) {
                continue; // a failure belongs to no kind; ToolResults and the journal render it for all
            }
            assertTrue(KINDS.owning(type).isPresent(),
                    () -> type.getName() + " has no registered kind: implement EffectKind and register it in Gateway.KINDS");
        }
    }

    @Test
    void eachKindPresentsExactlyTheKernelsTypesOfOneKind() {
        assertSameTypes(Action.class, EffectKind::actionType);
        assertSameTypes(AuthorizedAction.class, EffectKind::permitType);
        assertSameTypes(Allowance.class, EffectKind::allowanceType);
        Set<String> outcomes = names(Arrays.stream(Outcome.class.getPermittedSubclasses())
                .filter(type -> type != ExecutionFailure.class).toList());
        assertEquals(outcomes, names(KINDS.all().stream().<Class<?>>map(EffectKind::outcomeType).toList()));
    }

    @Test
    void everyRegisteredKindIsRoutedToItself() {
        for (EffectKind<?, ?, ?> kind : KINDS.all()) {
            for (Class<?> type : List.of(kind.actionType(), kind.permitType(), kind.outcomeType(), kind.allowanceType())) {
                assertEquals(kind, KINDS.owning(type).orElseThrow(), type.getName());
            }
        }
    }

    @Test
    void theRegistrationsAreTheKindsEveryPresenterIterates() {
        assertEquals(Gateway.KINDS.stream().map(Registration::kind).toList(), KINDS.all());
    }

    /** The kinds registered with {@code KindCheck.none}: each is a kind without deep checks, on purpose. */
    private static final Set<String> KINDS_WITHOUT_DEEP_CHECKS = Set.of();

    @Test
    void everyRegisteredKindNamesDeepChecksOfItsOwnAllowancesOrDeclaresItHasNone() {
        Set<String> none = new TreeSet<>();
        for (Registration<?> r : Gateway.KINDS) {
            assertEquals(r.kind().allowanceType(), r.checks().allowanceType(), r.kind().toolName());
            if (r.checks() instanceof KindCheck.None) {
                none.add(r.kind().toolName());
            }
        }
        assertEquals(KINDS_WITHOUT_DEEP_CHECKS, none, "kinds registered with KindCheck.none");
        assertEquals(Gateway.KINDS.stream().map(Registration::checks).toList(), Gateway.kindChecks());
    }

    @Test
    void aRegistrationWithoutDeepChecksOrWithAnotherKindsIsRefused() {
        Registration.ExecutorFactory<AuthorizedSqlStatement> typed = (config, credentials, around) -> new SqlActionExecutor(credentials);

        NullPointerException missing = assertThrows(NullPointerException.class,
                () -> Registration.of(new SqlQueryKind(), new SqlSection(), typed, null));
        assertEquals("checks", missing.getMessage());
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
                () -> Registration.of(new SqlQueryKind(), new SqlSection(), typed, new HttpTargetCheck()));
        assertEquals("the deep checks registered for sql_query check HttpTarget, not its SqlDatabase", wrong.getMessage());
        assertEquals(KindCheck.none(SqlDatabase.class),
                Registration.of(new SqlQueryKind(), new SqlSection(), typed, KindCheck.none(SqlDatabase.class)).checks());
    }

    @Test
    void aRegistrationWithoutAConfigSectionOrWithAnotherKindsIsRefused() {
        Registration.ExecutorFactory<AuthorizedSqlStatement> typed = (config, credentials, around) -> new SqlActionExecutor(credentials);

        NullPointerException missing = assertThrows(NullPointerException.class,
                () -> Registration.of(new SqlQueryKind(), null, typed, new SqlDatabaseCheck()));
        assertEquals("section", missing.getMessage());
        IllegalArgumentException wrong = assertThrows(IllegalArgumentException.class,
                () -> Registration.of(new SqlQueryKind(), new HttpSection(), typed, new SqlDatabaseCheck()));
        assertEquals("the config section registered for sql_query reads HttpTarget, not its SqlDatabase", wrong.getMessage());
    }

    private static void assertSameTypes(Class<?> sealed, Function<EffectKind<?, ?, ?>, Class<?>> type) {
        assertEquals(names(List.of(sealed.getPermittedSubclasses())), names(KINDS.all().stream().<Class<?>>map(type).toList()),
                () -> "the registered kinds' types differ from what " + sealed.getSimpleName() + " permits");
    }

    private static Set<String> names(List<Class<?>> types) {
        return types.stream().map(Class::getName).collect(Collectors.toCollection(TreeSet::new));
    }
}
