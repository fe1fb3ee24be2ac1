package dev.postern.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Single-quoting of argv elements: NUL refused wherever it sits, quotes closed and reopened. */
class ShellQuotingTest {

    @ParameterizedTest
    @ValueSource(strings = {"\0", "\0a", "a\0", "a\0b"})
    void anElementHoldingNulAnywhereIsRefused(String element) {
        assertThrows(IllegalArgumentException.class, () -> ShellQuoting.quote(element));
    }

    @Test
    void elementsAreSingleQuotedAndJoinedBySpaces() {
        assertEquals("'tail' '-n' '20' 'it'\\''s here'", ShellQuoting.commandLine(List.of("tail", "-n", "20", "it's here")));
        assertEquals("''", ShellQuoting.quote(""));
    }
}
