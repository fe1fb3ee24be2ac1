package dev.postern.policy.model;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The names operations are offered under as tools of their own: two snake_case words joined by
 * {@code __}, and each offered once in a policy, upstream tools included; a policy that offers one name
 * twice is refused, naming both.
 */
class TypedToolNamesTest {
    private static final Origin ORIGIN = new Origin("https", "api.example.com", 443);

    private static HttpTarget target(String name, String tool) {
        return new HttpTarget(name, ORIGIN, Set.of("GET"), List.of("/"), Set.of(), Optional.empty(), Duration.ofSeconds(5), 1024, false)
                .withTool(new TypedTool(tool));
    }

    private static SshHost host(String tool) {
        return new SshHost("box", "10.0.0.5", 22, "deploy", new SshAuth.Key(new CredentialRef("key"), Optional.empty()),
                Optional.of(Path.of("known_hosts")), Optional.empty(), Duration.ofSeconds(5), 1024,
                List.of(new SshCommandSpec("uptime", List.of("uptime"), Map.of(), false, Optional.of(new TypedTool(tool)))));
    }

    private static SqlDatabase database(String... tools) {
        List<SqlStatementSpec> statements = new java.util.ArrayList<>();
        for (int i = 0; i < tools.length; i++) {
            statements.add(new SqlStatementSpec("s" + i, "SELECT 1", Map.of(), true, false, Optional.of(new TypedTool(tools[i]))));
        }
        return new SqlDatabase("shop", "db.internal", 5432, "shop", "agent", new CredentialRef("pw"), SqlDatabase.Tls.verifyFull(),
                false, Duration.ofSeconds(5), 10, 1024, statements);
    }

    private static UpstreamServer upstream(String name, String tool) {
        return new UpstreamServer(name, List.of("/usr/bin/node", "server.js"), "/tmp", Map.of(), Duration.ofSeconds(5),
                Duration.ofSeconds(5), 1024, List.of(new UpstreamTool(tool, "sha256:" + "0".repeat(64), false, Map.of())), Optional.empty());
    }

    @Test
    void aNameIsTwoSnakeCaseWordsJoinedByADoubleUnderscoreOfAtMost64Characters() {
        for (String good : List.of("shop__cancel_order", "a__b", "web1__tail_log_2", "x__" + "y".repeat(61))) {
            assertDoesNotThrow(() -> new TypedTool(good), good);
        }
        for (String bad : List.of("cancel_order", "shop_cancel", "shop___x", "shop__x__y", "Shop__x", "shop__X", "shop-1__x", "_a__b",
                "a__b_", "a__", "__b", "1a__b", "a__b ", "x__" + "y".repeat(62))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new TypedTool(bad), bad);
            assertEquals(true, e.getMessage().contains("like shop__cancel_order"), e.getMessage());
        }
    }

    @Test
    void oneNameOfferedByTwoOperationsIsRefusedNamingBoth() {
        IllegalArgumentException sameKind = assertThrows(IllegalArgumentException.class,
                () -> Policy.of(database("shop__orders", "shop__orders")));
        assertEquals("tool shop__orders is offered twice: by sql database shop, statement s0 and by sql database shop, statement s1;"
                + " each tool name must be unique", sameKind.getMessage());

        IllegalArgumentException acrossKinds = assertThrows(IllegalArgumentException.class,
                () -> Policy.of(target("api", "ops__status"), host("ops__status")));
        assertEquals("tool ops__status is offered twice: by http target api and by ssh host box, command uptime;"
                + " each tool name must be unique", acrossKinds.getMessage());
    }

    @Test
    void aTypedToolMayNotTakeTheNameOfAnUpstreamTool() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Policy.of(database("shop__search"), upstream("shop", "search")));
        assertEquals("tool shop__search is offered twice: by sql database shop, statement s0 and by upstream MCP server shop,"
                + " tool search; each tool name must be unique", e.getMessage());
        assertDoesNotThrow(() -> Policy.of(database("shop__search"), upstream("shop", "lookup"), target("api", "api__search")));
    }
}
