/**
 * The policy as the kernel holds it: one allowance record per kind (HTTP targets, SSH hosts, SQL databases,
 * upstream MCP servers with their pinned tools), each a record that checks itself
 * when built, so that a policy which exists is a policy that makes sense. The app module builds
 * these from the configuration file; the kernel never reads a file. JDK only.
 */
package dev.postern.policy.model;
