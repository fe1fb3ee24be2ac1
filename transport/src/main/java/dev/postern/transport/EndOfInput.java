package dev.postern.transport;

/** The input ended right after a line terminator (or before any byte): nothing was cut off. */
public record EndOfInput() implements ReadResult {
}
