/**
 * {@code postern demo}: a loopback HTTP service and an in-process SSH server that run nothing real,
 * a demo config written to a temporary directory, a real {@code postern mcp-stdio} child process
 * driven through a scripted MCP session, and the transcript a newcomer reads. Loopback only.
 */
package dev.postern.demo;
