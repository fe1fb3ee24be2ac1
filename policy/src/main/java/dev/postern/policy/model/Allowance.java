package dev.postern.policy.model;

/**
 * One thing an operator allows, of one kind of effect: an HTTP target, an SSH host. The set is closed,
 * like the set of actions: a new kind of effect adds its allowance record here. Names are unique within
 * a kind.
 */
public sealed interface Allowance permits HttpTarget, SshHost {

    /** The operator's name for it, unique among the allowances of its kind. */
    String name();

    /** What one of these is called in an error message, such as {@code http target}. */
    String noun();
}
