/**
 * The command line of DESIGN §3: one {@link dev.postern.app.cli.Command} per subcommand, listed
 * once in {@link dev.postern.app.cli.Cli}. Human-facing reports go to the stdout stream the guard
 * handed out; errors and diagnostics to stderr. {@code mcp-stdio} writes nothing to stdout but
 * protocol lines.
 */
package dev.postern.app.cli;
