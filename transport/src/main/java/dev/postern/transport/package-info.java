/**
 * Stdio framing for the gateway, in and out: {@link dev.postern.transport.FrameReader} turns stdin
 * bytes into {@link dev.postern.transport.Frame}s (one LF-terminated line of strict UTF-8 within a
 * byte limit) or a {@link dev.postern.transport.FramingError}, {@link dev.postern.transport.FrameWriter}
 * emits whole lines, and {@link dev.postern.transport.StdoutGuard} is the one class that claims the
 * process's protocol stream.
 *
 * <p>The first ring of the pipeline: it knows bytes, lines and UTF-8, never JSON. It depends on the
 * JDK only.
 */
package dev.postern.transport;
