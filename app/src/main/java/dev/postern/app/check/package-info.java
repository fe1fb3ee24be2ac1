/**
 * What {@code check-config --deep} and {@code mcp-stdio}'s start-up look at beyond the config's own
 * validity: the files, variables, directories and addresses a call will need, and (with
 * {@code --connect}) a TLS handshake or host-key read per target. Sends no request and runs no command.
 */
package dev.postern.app.check;
