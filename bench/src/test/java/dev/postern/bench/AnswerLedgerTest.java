package dev.postern.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AnswerLedgerTest {

    private static ResponseLine line(String json) {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return ResponseLine.parse(b, 0, b.length);
    }

    private static ResponseLine ok(long id) {
        return new ResponseLine(id, 0, false);
    }

    @Test
    void everyIdAnsweredOnceIsClean() {
        AnswerLedger ledger = new AnswerLedger(10, 3);
        assertTrue(ledger.record(ok(12)));
        assertTrue(ledger.record(ok(10)));
        assertTrue(ledger.record(ok(11)));
        assertTrue(ledger.clean(), ledger.summary());
    }

    @Test
    void anIdNeverAnsweredIsLost() {
        AnswerLedger ledger = new AnswerLedger(10, 3);
        ledger.record(ok(10));
        ledger.record(ok(12));
        assertEquals(1, ledger.lost());
        assertFalse(ledger.clean());
    }

    @Test
    void anIdAnsweredTwiceIsADuplicateAndStillCountsOnce() {
        AnswerLedger ledger = new AnswerLedger(10, 2);
        ledger.record(ok(10));
        assertFalse(ledger.record(ok(10)));
        assertEquals(1, ledger.duplicates());
        assertEquals(1, ledger.lost());
    }

    @Test
    void anIdNeverSentOrANullIdIsUnexpected() {
        AnswerLedger ledger = new AnswerLedger(10, 1);
        assertFalse(ledger.record(ok(9)));
        assertFalse(ledger.record(ok(11)));
        assertFalse(ledger.record(line("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}")));
        assertEquals(3, ledger.unexpected());
    }

    @Test
    void errorsAndToolErrorsAnswerTheirIdButFail() {
        AnswerLedger ledger = new AnswerLedger(1, 2);
        ledger.record(line("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,\"message\":\"unknown tool\"}}"));
        ledger.record(line("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[],\"isError\":true}}"));
        assertEquals(0, ledger.lost());
        assertEquals(2, ledger.failed());
        assertFalse(ledger.clean());
    }

    @Test
    void responseLineReadsIdErrorCodeAndIsErrorAtAnyFieldOrder() {
        ResponseLine r = line("{\"result\":{\"structuredContent\":{\"isError\":true},\"isError\":false},\"id\":77,\"jsonrpc\":\"2.0\"}");
        assertEquals(new ResponseLine(77, 0, false), r);
        assertEquals(-32601, line("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"message\":\"m\",\"code\":-32601}}").errorCode());
        assertEquals(ResponseLine.UNREADABLE, line("banner text"));
    }
}
