/**
 * Adapter: the kernel's {@link dev.postern.policy.port.Telemetry} port on the OpenTelemetry SDK,
 * exporting traces and metrics over OTLP/HTTP protobuf in the OpenTelemetry MCP semantic conventions.
 * {@link dev.postern.telemetry.OtlpTelemetry} is the one entry point; everything else is package-private.
 * Nothing here is loaded unless the config has a {@code telemetry} section.
 */
package dev.postern.telemetry;
