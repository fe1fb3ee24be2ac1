package dev.postern.protocol.mcp;

import static dev.postern.protocol.mcp.McpServerTest.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.postern.protocol.json.StrictJson;
import dev.postern.protocol.jsonrpc.RequestId;
import dev.postern.protocol.tools.Binding;
import dev.postern.protocol.tools.TestKinds;
import dev.postern.protocol.tools.ToolCatalog;
import dev.postern.protocol.tools.ToolResults;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * postern_targets' answer is rendered once per era and only its envelope per call: every line is
 * byte for byte the line the per-call tree rendering writes (ToolResults.answer on the structured
 * content, the era's decoration, the envelope), whatever the id, in either era, and no caller can
 * change what the next call answers.
 */
class FixedAnswerLinesTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final JsonMapper WRITER = StrictJson.mapper(1 << 20);
    /** Ids as the wire spells them, with the RequestId each becomes: escapes, non-ASCII, a line separator, extremes. */
    private static final List<Object[]> IDS = List.of(
            new Object[] {"7", new RequestId.Number(7)},
            new Object[] {"-9223372036854775808", new RequestId.Number(Long.MIN_VALUE)},
            new Object[] {"\"a\\\"b\\\\c\\u2028\\u00e9/\\u0001\"", new RequestId.Text("a\"b\\c\u2028\u00e9/\u0001")},
            new Object[] {"\"\"", new RequestId.Text("")});

    private final ToolCatalog catalog = new ToolCatalog(TestKinds.ALL, McpServerTest.policy());

    private static String call(String id, String meta) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"postern_targets\","
                + "\"arguments\":{}" + meta + "}}";
    }

    /** The line as it was rendered per call before the answer was fixed: the whole tree, serialized once. */
    private String treeRendered(RequestId id, boolean stateless) throws Exception {
        Binding.Answer answer = assertInstanceOf(Binding.Answer.class,
                catalog.bind(catalog.find(ToolCatalog.POSTERN_TARGETS).orElseThrow(), NODES.objectNode()));
        ObjectNode result = ToolResults.answer(answer.structuredContent());
        if (stateless) {
            result.put("resultType", "complete");
            result.putObject("_meta").set("io.modelcontextprotocol/serverInfo",
                    NODES.objectNode().put("name", "postern").put("version", "test"));
        }
        ObjectNode line = NODES.objectNode();
        line.put("jsonrpc", "2.0");
        line.set("id", id.toJson());
        line.set("result", result);
        return WRITER.writeValueAsString(line);
    }

    private static String answered(McpServer server, String frame) {
        return assertInstanceOf(Inbound.Respond.class, server.receive(frame(frame))).line();
    }

    @Test
    void aHandshakeEraCallIsAnsweredWithTheTreeRenderedLineForEveryId() throws Exception {
        McpServer server = McpServer.over(catalog, new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        assertInstanceOf(Inbound.Respond.class, server.receive(frame(McpServerTest.INIT)));
        assertInstanceOf(Inbound.Ignore.class, server.receive(frame(McpServerTest.INITIALIZED)));
        for (int round = 0; round < 2; round++) {
            for (Object[] id : IDS) {
                assertEquals(treeRendered((RequestId) id[1], false), answered(server, call((String) id[0], "")), (String) id[0]);
            }
        }
    }

    @Test
    void aStatelessEraCallIsAnsweredWithTheTreeRenderedLineAndItsDecorationForEveryId() throws Exception {
        McpServer server = McpServer.over(catalog, new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        for (int round = 0; round < 2; round++) {
            for (Object[] id : IDS) {
                assertEquals(treeRendered((RequestId) id[1], true), answered(server, call((String) id[0], "," + StatelessEraTest.META)),
                        (String) id[0]);
            }
        }
    }

    @Test
    void twoConnectionsOfOneCatalogInDifferentErasEachGetTheirOwnDecoration() throws Exception {
        McpServer stateless = McpServer.over(catalog, new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        McpServer handshake = McpServer.over(catalog, new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        assertInstanceOf(Inbound.Respond.class, handshake.receive(frame(McpServerTest.INIT)));
        assertInstanceOf(Inbound.Ignore.class, handshake.receive(frame(McpServerTest.INITIALIZED)));
        assertEquals(treeRendered(new RequestId.Number(7), true), answered(stateless, call("7", "," + StatelessEraTest.META)));
        assertEquals(treeRendered(new RequestId.Number(7), false), answered(handshake, call("7", "")));
        assertEquals(treeRendered(new RequestId.Number(8), true), answered(stateless, call("8", "," + StatelessEraTest.META)));
    }

    @Test
    void changingTheStructuredContentABindingHandsOutChangesNoLaterAnswer() throws Exception {
        McpServer server = McpServer.over(catalog, new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        assertInstanceOf(Inbound.Respond.class, server.receive(frame(McpServerTest.INIT)));
        assertInstanceOf(Inbound.Ignore.class, server.receive(frame(McpServerTest.INITIALIZED)));
        String before = answered(server, call("1", ""));
        Binding.Answer answer = assertInstanceOf(Binding.Answer.class,
                catalog.bind(catalog.find(ToolCatalog.POSTERN_TARGETS).orElseThrow(), NODES.objectNode()));
        answer.structuredContent().removeAll().put("http", "tampered");
        answer.fixed().result().removeAll();
        assertEquals(before, answered(server, call("1", "")));
        McpServer later = McpServer.over(catalog, new ServerInfo("postern", "test"), McpServer.Limits.frames(1 << 20));
        assertInstanceOf(Inbound.Respond.class, later.receive(frame(McpServerTest.INIT)));
        assertInstanceOf(Inbound.Ignore.class, later.receive(frame(McpServerTest.INITIALIZED)));
        assertEquals(before, answered(later, call("1", "")), "a connection that renders the answer after the tampering");
        assertEquals(treeRendered(new RequestId.Number(1), false), before);
    }
}
