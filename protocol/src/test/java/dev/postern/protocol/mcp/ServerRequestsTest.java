package dev.postern.protocol.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.mcp.ServerRequests.Delivery;
import dev.postern.protocol.mcp.ServerRequests.Pending;
import dev.postern.protocol.mcp.ServerRequests.Reply;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Responses reach the call that waits for them by id; late ones run nothing; unknown ones are told apart. */
class ServerRequestsTest {
    private static final Reply OK = new Reply(Optional.of(JsonNodeFactory.instance.objectNode().put("action", "accept")), Optional.empty());

    @Test
    void eachRequestGetsItsOwnStringIdAndItsOwnReply() throws Exception {
        ServerRequests requests = new ServerRequests();
        Pending a = requests.open();
        Pending b = requests.open();
        assertNotEquals(a.id(), b.id());
        assertTrue(a.id() instanceof RequestId.Text t && t.value().startsWith("postern-approval-"));
        Reply second = new Reply(Optional.empty(), Optional.of(JsonNodeFactory.instance.objectNode().put("code", -1)));
        assertEquals(Delivery.DELIVERED, requests.deliver(b.id(), second));
        assertFalse(a.reply().isDone());
        assertEquals(Delivery.DELIVERED, requests.deliver(a.id(), OK));
        assertSame(OK, a.reply().get());
        assertSame(second, b.reply().get());
        assertEquals(0, requests.waiting());
    }

    @Test
    void aResponseAfterTheWaitEndedIsLateAndCompletesNothing() {
        ServerRequests requests = new ServerRequests();
        Pending a = requests.open();
        requests.end(a.id());
        assertTrue(a.reply().isCancelled());
        assertEquals(Delivery.LATE, requests.deliver(a.id(), OK));
        assertEquals(Delivery.LATE, requests.deliver(a.id(), OK), "still late the second time");
    }

    @Test
    void aResponseToAnIdNeverSentIsUnknown() {
        ServerRequests requests = new ServerRequests();
        Pending a = requests.open();
        assertEquals(Delivery.UNKNOWN, requests.deliver(new RequestId.Text("postern-approval-99"), OK));
        assertEquals(Delivery.UNKNOWN, requests.deliver(new RequestId.Number(1), OK));
        assertFalse(a.reply().isDone());
    }

    @Test
    void aSecondResponseToTheSameIdIsLate() {
        ServerRequests requests = new ServerRequests();
        Pending a = requests.open();
        assertEquals(Delivery.DELIVERED, requests.deliver(a.id(), OK));
        assertEquals(Delivery.LATE, requests.deliver(a.id(), OK));
    }

    @Test
    void endingAllCancelsEveryWait() {
        ServerRequests requests = new ServerRequests();
        Pending a = requests.open();
        Pending b = requests.open();
        requests.endAll();
        assertTrue(a.reply().isCancelled());
        assertTrue(b.reply().isCancelled());
        assertEquals(0, requests.waiting());
    }

    @Test
    void waitingCountsTheRequestsStillOpen() {
        ServerRequests requests = new ServerRequests();
        Pending a = requests.open();
        requests.open();
        assertEquals(2, requests.waiting());
        requests.end(a.id());
        assertEquals(1, requests.waiting());
    }

    @Test
    void theLast1024EndedWaitsAreRememberedAndAnOlderOneBecomesUnknown() {
        ServerRequests requests = new ServerRequests();
        Pending first = requests.open();
        requests.end(first.id());
        for (int i = 1; i < ServerRequests.REMEMBERED_ENDED; i++) {
            requests.end(requests.open().id());
        }
        assertEquals(Delivery.LATE, requests.deliver(first.id(), OK), "1024 ended: the first is still remembered");
        Pending next = requests.open();
        requests.end(next.id());
        assertEquals(Delivery.UNKNOWN, requests.deliver(first.id(), OK), "the 1025th pushes the oldest out");
        assertEquals(Delivery.LATE, requests.deliver(next.id(), OK));
    }
}
