package dev.postern.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
