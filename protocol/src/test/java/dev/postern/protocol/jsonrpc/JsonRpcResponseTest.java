package dev.postern.protocol.jsonrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** A client's response to a request Postern sent: strictly one result or one well-formed error, under an id. */
class JsonRpcResponseTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static JsonNode json(String s) throws Exception {
        return MAPPER.readTree(s);
    }

    @Test
    void aResultAndAnErrorAreRead() throws Exception {
        JsonRpcResponse r = JsonRpcResponse.read(json("{\"jsonrpc\":\"2.0\",\"id\":\"postern-approval-1\",\"result\":{\"action\":\"accept\"}}"));
        assertEquals(new RequestId.Text("postern-approval-1"), r.id());
        assertEquals("accept", r.result().get().get("action").textValue());
        JsonRpcResponse e = JsonRpcResponse.read(json("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,\"message\":\"no\"}}"));
        assertEquals(new RequestId.Number(3), e.id());
        assertTrue(e.error().isPresent());
    }

    @Test
    void onlyAMessageWithoutMethodAndWithAResultOrErrorLooksLikeAResponse() throws Exception {
        assertTrue(JsonRpcResponse.looksLikeOne(json("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}")));
        assertTrue(JsonRpcResponse.looksLikeOne(json("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{}}")));
        assertFalse(JsonRpcResponse.looksLikeOne(json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"result\":{}}")));
        assertFalse(JsonRpcResponse.looksLikeOne(json("{\"jsonrpc\":\"2.0\",\"id\":1}")));
        assertFalse(JsonRpcResponse.looksLikeOne(json("[]")));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"jsonrpc\":\"1.0\",\"id\":1,\"result\":{}}",
        "{\"id\":1,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1,\"message\":\"m\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"bad\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"1\",\"message\":\"m\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1}}"})
    void aMalformedResponseIsAnInvalidRequest(String text) throws Exception {
        assertThrows(JsonRpcMessage.InvalidRequest.class, () -> JsonRpcResponse.read(json(text)));
    }
}
