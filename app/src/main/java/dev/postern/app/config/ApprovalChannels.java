package dev.postern.app.config;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which {@link ApprovalChannel} answers each {@code confirm} rule: the rule's own where its {@code confirm}
 * names one, else the session's ({@code session.approval}). Keyed by the rule id the policy gives the
 * permit ({@code http.target:NAME}, {@code ssh.command:HOST.COMMAND}, {@code sql.statement:DB.STATEMENT},
 * {@code mcp.tool:SERVER.TOOL}). Immutable.
 */
public record ApprovalChannels(ApprovalChannel session, Map<String, ApprovalChannel> byRule) {
    private static final Pattern RULE = Pattern.compile("(http\\.target|ssh\\.command|sql\\.statement|mcp\\.tool):\\S+");

    /** The default of a config file that says nothing: {@code any}, no rule of its own. */
    public static final ApprovalChannels DEFAULT = new ApprovalChannels(ApprovalChannel.valueOf(
            ConfigDefaults.APPROVAL.toUpperCase(java.util.Locale.ROOT)), Map.of());

    public ApprovalChannels {
        Objects.requireNonNull(session, "session");
        byRule = Map.copyOf(Objects.requireNonNull(byRule, "byRule"));
        for (String rule : byRule.keySet()) {
            if (!RULE.matcher(rule).matches()) {
                throw new IllegalArgumentException("byRule: not a confirm rule's id: " + rule);
            }
        }
    }

    /** Every rule answered by {@code channel}, whatever it says itself. */
    public static ApprovalChannels only(ApprovalChannel channel) {
        return new ApprovalChannels(channel, Map.of());
    }

    /** The channel that answers {@code rule}. */
    public ApprovalChannel of(String rule) {
        return byRule.getOrDefault(rule, session);
    }
}
