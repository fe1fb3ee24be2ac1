/**
 * The command line of DESIGN §3: one {@link dev.postern.app.cli.Command} per subcommand, listed
 * once in {@link dev.postern.app.cli.Cli}. Human-facing reports go to the stdout stream the guard
 * handed out; errors and diagnostics to stderr. {@code mcp-stdio} writes nothing to stdout but
 * protocol lines.
 *
 * <p>May use the rest of {@code app}; never touches the process's standard output itself
 * ({@code ArchitectureRules.ONLY_THE_STDOUT_GUARD_TOUCHES_THE_PROTOCOL_STREAM}) and never calls an
 * executor ({@code ArchitectureRules.ONLY_THE_DISPATCHER_CALLS_AN_EXECUTOR}).
 */
package dev.postern.app.cli;
