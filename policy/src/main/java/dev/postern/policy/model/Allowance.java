package dev.postern.policy.model;

import dev.postern.policy.RegistrationPoint;
import java.util.List;
import java.util.Optional;

/**
 * One thing an operator allows, of one kind of effect: an HTTP target, an SSH host, a SQL database, an
 * upstream MCP server. The set is closed,
 * like the set of actions: a new kind of effect adds its allowance record here. Names are unique within
 * a kind.
 */
@RegistrationPoint("the kind's allowance record in permits")
public sealed interface Allowance permits HttpTarget, SshHost, SqlDatabase, UpstreamServer {

    /** The operator's name for it, unique among the allowances of its kind. */
    String name();

    /** What one of these is called in an error message, such as {@code http target}. */
    String noun();

    /** How many calls it takes per period, if the operator limited it (applied outside the kernel). */
    Optional<RateLimit> rateLimit();

    /**
     * The tools it offers under names of their own, beside its kind's generic tool: its operations'
     * {@link TypedTool}s, an upstream server's {@code server__tool}s. {@link Policy} refuses a name offered twice.
     */
    List<ToolClaim> toolClaims();
}
