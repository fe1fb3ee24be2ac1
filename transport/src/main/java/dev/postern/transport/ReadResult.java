package dev.postern.transport;

/**
 * What one {@link FrameReader#next()} yields: a frame, a clean end of input at a line boundary, or
 * the framing error that ends the session. Closed, so a caller handles every case.
 */
public sealed interface ReadResult permits Frame, EndOfInput, FramingError {
}
