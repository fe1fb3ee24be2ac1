package dev.postern.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The option parser's forms and the config argument's sources. */
class OptionsTest {
    @Test
    void nameEqualsValueIsTheSameAsNameThenValue() throws Exception {
        Options spaced = Options.parse(List.of("--config", "a.json", "web"), Set.of("--config"));
        Options joined = Options.parse(List.of("--config=a.json", "web"), Set.of("--config"));

        assertEquals(Optional.of("a.json"), spaced.get("--config"));
        assertEquals(Optional.of("a.json"), joined.get("--config"));
        assertEquals(List.of("web"), joined.positional());
        assertEquals(Optional.of("x=y"), Options.parse(List.of("--config=x=y"), Set.of("--config")).get("--config"));
    }

    @Test
    void eachFormIsRefusedWhenEmptyRepeatedOrUnknown() {
        Set<String> known = Set.of("--config");
        assertTrue(assertThrows(Options.UsageException.class, () -> Options.parse(List.of("--config="), known))
                .getMessage().contains("needs a value"));
        assertTrue(assertThrows(Options.UsageException.class, () -> Options.parse(List.of("--config=a", "--config", "b"), known))
                .getMessage().contains("given twice"));
        assertTrue(assertThrows(Options.UsageException.class, () -> Options.parse(List.of("--conf=a"), known))
                .getMessage().contains("unknown option --conf"));
    }

    @Test
    void flagsTakeNoValue() throws Exception {
        Options o = Options.parse(List.of("--deep", "--config", "a"), Set.of("--config"), Set.of("--deep", "--connect"));

        assertTrue(o.has("--deep"));
        assertEquals(false, o.has("--connect"));
        assertThrows(Options.UsageException.class, () -> Options.parse(List.of("--deep=yes"), Set.of(), Set.of("--deep")));
        assertThrows(Options.UsageException.class, () -> Options.parse(List.of("--deep", "--deep"), Set.of(), Set.of("--deep")));
    }

    @Test
    void theOptionWinsOverPosternConfigWhichIsUsedWhenTheOptionIsAbsent() throws Exception {
        Options with = Options.parse(List.of("--config=option.json"), Set.of("--config"));
        Options without = Options.parse(List.of(), Set.of("--config"));
        Map<String, String> env = Map.of("POSTERN_CONFIG", "env.json");

        assertEquals("option.json", ConfigArgument.file(with, env));
        assertEquals("env.json", ConfigArgument.file(without, env));
        assertTrue(assertThrows(Options.UsageException.class, () -> ConfigArgument.file(without, Map.of("POSTERN_CONFIG", "")))
                .getMessage().contains("POSTERN_CONFIG"));
    }
}
