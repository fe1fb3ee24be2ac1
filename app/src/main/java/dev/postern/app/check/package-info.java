/**
 * What {@code check-config --deep} and {@code mcp-stdio}'s start-up look at beyond the config's own
 * validity: the files, variables, directories and addresses a call will need, each kind's through the
 * {@link dev.postern.app.check.KindCheck} it registers, and (with {@code --connect}) a TLS handshake
 * or host-key read per target and a login per SQL database in which each statement is parsed and
 * described. Sends no HTTP request and runs no command or statement.
 */
package dev.postern.app.check;
