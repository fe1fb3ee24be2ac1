/**
 * An immutable JSON value for the one kind whose effect is JSON (calls to upstream MCP servers): built
 * by the protocol's strict parser through the {@code JsonCodec} port, never by a parser of this
 * module's own, and written in RFC 8785 canonical form for pins and digests. JDK only.
 */
package dev.postern.policy.json;
