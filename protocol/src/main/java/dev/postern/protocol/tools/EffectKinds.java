package dev.postern.protocol.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.policy.AuthorizedAction;
import dev.postern.policy.action.Action;
import dev.postern.policy.outcome.ExecutionFailure;
import dev.postern.policy.outcome.Outcome;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The registered kinds of effect, in registration order, and the one place that finds the kind of a
 * permit or an outcome by its class and hands it over typed. Presenters ({@link ToolResults}, the
 * journal, {@code explain}) go through here instead of branching on types. Immutable; thread-safe.
 */
public final class EffectKinds {
    /** The longest failure detail an outcome row holds; a server's message can be long, a row must stay small. */
    public static final int MAX_DETAIL_CHARS = 4000;
    /** The field of an intent or denial row that holds the action as asked, for {@code audit replay}. */
    public static final String ASKED = "asked";

    private final List<EffectKind<?, ?, ?>> kinds;
    private final Map<Class<?>, EffectKind<?, ?, ?>> byType = new HashMap<>();
    private final Map<String, EffectKind<?, ?, ?>> byName = new HashMap<>();

    public EffectKinds(List<EffectKind<?, ?, ?>> kinds) {
        this.kinds = List.copyOf(Objects.requireNonNull(kinds, "kinds"));
        Set<String> names = new HashSet<>();
        Set<String> fields = new HashSet<>();
        for (EffectKind<?, ?, ?> kind : this.kinds) {
            byName.put(kind.toolName(), kind);
            if (!names.add(kind.toolName())) {
                throw new IllegalArgumentException("two kinds are registered as " + kind.toolName());
            }
            if (!fields.add(kind.targetsField())) {
                throw new IllegalArgumentException("two kinds list their allowances as postern_targets field " + kind.targetsField());
            }
            for (Class<?> type : List.of(kind.actionType(), kind.permitType(), kind.outcomeType(), kind.allowanceType())) {
                if (byType.put(type, kind) != null) {
                    throw new IllegalArgumentException("two kinds claim " + type.getSimpleName());
                }
            }
        }
    }

    public static EffectKinds of(EffectKind<?, ?, ?>... kinds) {
        return new EffectKinds(List.of(kinds));
    }

    public List<EffectKind<?, ?, ?>> all() {
        return kinds;
    }

    /** The kind that owns this action, permit, outcome or allowance type, if one is registered. */
    public Optional<EffectKind<?, ?, ?>> owning(Class<?> type) {
        return Optional.ofNullable(byType.get(type));
    }

    /** The kind of a permit; IllegalArgumentException when no kind is registered for its type. */
    public EffectKind<?, ?, ?> ofPermit(AuthorizedAction permit) {
        return owner(permit.getClass());
    }

    /** A success (or partial) outcome rendered by its kind as structured content. */
    public ObjectNode render(Outcome outcome) {
        return render(owner(outcome.getClass()), outcome);
    }

    /** A success as its kind makes it a tool result: structured content, or a whole result of its own. */
    public KindResult result(Outcome outcome) {
        return result(owner(outcome.getClass()), outcome);
    }

    /** As {@link #render}, shrunk by its kind to fit {@code maxRenderedBytes} where it can ({@link EffectKind#renderWithin}). */
    public ObjectNode renderWithin(Outcome outcome, long maxRenderedBytes) {
        return renderWithin(owner(outcome.getClass()), outcome, maxRenderedBytes);
    }

    /** What the permit would do, in the words of its kind. */
    public String explain(AuthorizedAction permit) {
        return explain(owner(permit.getClass()), permit);
    }

    /**
     * The tool name, target, rendered action and preview of an intent row, written by the permit's kind,
     * and (without {@code redactArguments}) the action as asked ({@link #asked}).
     */
    public void journalIntent(AuthorizedAction permit, ObjectNode row, boolean redactArguments) {
        EffectKind<?, ?, ?> kind = owner(permit.getClass());
        row.put("action", kind.toolName());
        journalIntent(kind, permit, row, redactArguments);
        if (!redactArguments) {
            row.set(ASKED, asked(permit.action()));
        }
    }

    /**
     * The tool name and what was refused of a denial row, written by the action's kind, and (without
     * {@code redactArguments}) the action as asked ({@link #asked}).
     */
    public void journalDenial(Action action, ObjectNode row, boolean redactArguments) {
        EffectKind<?, ?, ?> kind = owner(action.getClass());
        row.put("tool", kind.toolName());
        journalDenial(kind, action, row, redactArguments);
        if (!redactArguments) {
            row.set(ASKED, asked(action));
        }
    }

    /**
     * The action as asked, as the {@value #ASKED} field of a row holds it: {@code kind} (the kind's
     * tool name), then the kind's own fields ({@link EffectKind#asked}).
     */
    public ObjectNode asked(Action action) {
        EffectKind<?, ?, ?> kind = owner(action.getClass());
        ObjectNode asked = JsonNodeFactory.instance.objectNode();
        asked.put("kind", kind.toolName());
        asked.setAll(asked(kind, action));
        return asked;
    }

    /**
     * The action an {@value #ASKED} field holds, rebuilt by the kind it names; empty when it names no
     * registered kind or its kind cannot read it. For {@code audit replay}.
     */
    public Optional<Action> actionOf(JsonNode asked) {
        if (asked == null || !asked.path("kind").isTextual()) {
            return Optional.empty();
        }
        EffectKind<?, ?, ?> kind = byName.get(asked.get("kind").textValue());
        return kind == null ? Optional.empty() : kind.actionOf(asked).map(Action.class::cast);
    }

    /**
     * The result and the kind's fields of an outcome row: a failure's code and {@code detail} (what the
     * agent was told, then what only the operator may see: addresses, users, paths, the exception chain,
     * the server's words; at most {@value #MAX_DETAIL_CHARS} characters; the journal masks it), or
     * {@code ok} and its kind's fields.
     */
    public void journalOutcome(Outcome outcome, ObjectNode row) {
        if (outcome instanceof ExecutionFailure failure) {
            row.put("result", failure.code().name());
            String detail = failure.detail().isEmpty() ? failure.message() : failure.message() + " | " + failure.detail();
            row.put("detail", detail.length() <= MAX_DETAIL_CHARS ? detail : detail.substring(0, MAX_DETAIL_CHARS) + "…");
            return;
        }
        row.put("result", "ok");
        journalOutcome(owner(outcome.getClass()), outcome, row);
    }

    /** Phrases joined as in a sentence: {@code a}, {@code a and b}, {@code a, b and c}. */
    public static String inWords(List<String> phrases) {
        if (phrases.size() < 2) {
            return String.join("", phrases);
        }
        return String.join(", ", phrases.subList(0, phrases.size() - 1)) + " and " + phrases.get(phrases.size() - 1);
    }

    private EffectKind<?, ?, ?> owner(Class<?> type) {
        EffectKind<?, ?, ?> kind = byType.get(type);
        if (kind == null) {
            throw new IllegalArgumentException("no registered kind of effect handles " + type.getName());
        }
        return kind;
    }

    private static <O extends Outcome> ObjectNode render(EffectKind<?, ?, O> kind, Outcome outcome) {
        return kind.render(kind.outcomeType().cast(outcome));
    }

    private static <O extends Outcome> KindResult result(EffectKind<?, ?, O> kind, Outcome outcome) {
        return kind.result(kind.outcomeType().cast(outcome));
    }

    private static <O extends Outcome> ObjectNode renderWithin(EffectKind<?, ?, O> kind, Outcome outcome, long maxRenderedBytes) {
        return kind.renderWithin(kind.outcomeType().cast(outcome), maxRenderedBytes);
    }

    private static <P extends AuthorizedAction> String explain(EffectKind<?, P, ?> kind, AuthorizedAction permit) {
        return kind.explain(kind.permitType().cast(permit));
    }

    private static <P extends AuthorizedAction> void journalIntent(EffectKind<?, P, ?> kind, AuthorizedAction permit, ObjectNode row,
            boolean redactArguments) {
        kind.journalIntent(kind.permitType().cast(permit), row, redactArguments);
    }

    private static <A extends Action> ObjectNode asked(EffectKind<A, ?, ?> kind, Action action) {
        return kind.asked(kind.actionType().cast(action));
    }

    private static <A extends Action> void journalDenial(EffectKind<A, ?, ?> kind, Action action, ObjectNode row, boolean redactArguments) {
        kind.journalDenial(kind.actionType().cast(action), row, redactArguments);
    }

    private static <O extends Outcome> void journalOutcome(EffectKind<?, ?, O> kind, Outcome outcome, ObjectNode row) {
        kind.journalOutcome(kind.outcomeType().cast(outcome), row);
    }
}
