package dev.postern.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class DemoScriptTest {

    @Test
    void scriptAllowsTwoCallsDeniesTwoRejectsOneHasOneApprovedAndOneDeclinedAndEndsWithALineThatClosesTheSession() {
        List<Step> steps = new Demo(new Transcript(System.err, false), System.err).script("http://127.0.0.1:1");
        assertEquals(List.of(Step.Expect.RESULT, Step.Expect.NO_ANSWER, Step.Expect.RESULT, Step.Expect.RESULT,
                Step.Expect.ALLOWED, Step.Expect.ALLOWED, Step.Expect.DENIED, Step.Expect.DENIED,
                Step.Expect.INVALID_ARGUMENTS, Step.Expect.APPROVED, Step.Expect.DECLINED, Step.Expect.SESSION_CLOSED),
                steps.stream().map(Step::expect).collect(Collectors.toList()));
        assertEquals(Step.Expect.SESSION_CLOSED, steps.get(steps.size() - 1).expect(), "the closing line comes last");
    }

    @Test
    void withPostgresTheScriptAddsOneAllowedAndOneDeniedSqlQueryBeforeTheClosingLine() {
        List<Step> steps = new Demo(new Transcript(System.err, false), System.err).script("http://127.0.0.1:1", true);
        assertEquals(List.of(Step.Expect.RESULT, Step.Expect.NO_ANSWER, Step.Expect.RESULT, Step.Expect.RESULT,
                Step.Expect.ALLOWED, Step.Expect.ALLOWED, Step.Expect.DENIED, Step.Expect.DENIED,
                Step.Expect.INVALID_ARGUMENTS, Step.Expect.APPROVED, Step.Expect.DECLINED, Step.Expect.ALLOWED, Step.Expect.DENIED, Step.Expect.SESSION_CLOSED),
                steps.stream().map(Step::expect).collect(Collectors.toList()));
        assertEquals(List.of(2L), steps.stream().map(Step::line).filter(l -> l.contains("\"sql_query\"")).map(l -> 1L)
                .reduce(Long::sum).map(List::of).orElseThrow());
    }

    @Test
    void withTheReferenceServerTheScriptAddsOneAllowedUpstreamCallAndOneRefusedNarrowedArgumentBeforeTheClosingLine() {
        List<Step> steps = new Demo(new Transcript(System.err, false), System.err).script("http://127.0.0.1:1", false, true);
        assertEquals(List.of(Step.Expect.RESULT, Step.Expect.NO_ANSWER, Step.Expect.RESULT, Step.Expect.RESULT,
                Step.Expect.ALLOWED, Step.Expect.ALLOWED, Step.Expect.DENIED, Step.Expect.DENIED,
                Step.Expect.INVALID_ARGUMENTS, Step.Expect.APPROVED, Step.Expect.DECLINED, Step.Expect.ALLOWED,
                Step.Expect.INVALID_ARGUMENTS, Step.Expect.SESSION_CLOSED),
                steps.stream().map(Step::expect).collect(Collectors.toList()));
        List<Step> upstream = steps.stream().filter(s -> s.line().contains("\"everything__echo\"")).toList();
        assertEquals(2, upstream.size(), upstream::toString);
        assertTrue(upstream.get(0).line().contains("\"message\":\"hello from the demo\""), upstream.get(0)::line);
        assertTrue(java.util.regex.Pattern.compile(Demo.MESSAGE_PATTERN).matcher("hello from the demo").find(),
                "the allowed message is inside the narrowing");
        assertFalse(java.util.regex.Pattern.compile(Demo.MESSAGE_PATTERN).matcher("hi; cat ~/.ssh/id_ed25519").find(),
                "the refused message is outside it");
    }
}
