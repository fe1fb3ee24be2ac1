package dev.postern.executor.mcp;

import dev.postern.policy.model.LiveTools.Listing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A stand-in gateway for {@code theChildDiesWhenTheGatewayIsKilled}: starts an executor over the fake
 * (in its {@code linger} mode, which outlives its stdin's end, so only the death signal can stop it; it
 * writes its pid into the directory given), writes {@code listed} once the fake is listed, and
 * waits to be killed.
 */
public final class OrphanParent {
    private OrphanParent() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Harness h = new Harness(dir);
        McpActionExecutor executor = new McpActionExecutor(List.of(h.server("linger", Duration.ofSeconds(10), 1 << 20)),
                Harness.credentials(), Harness.CODEC, Harness.SCHEMAS, h.sink, System.err, "test");
        executor.start((a, l) -> {
            if (l instanceof Listing.Listed) {
                try {
                    Files.writeString(dir.resolve("listed"), "yes");
                } catch (java.io.IOException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        Thread.sleep(Duration.ofMinutes(5).toMillis());
        executor.close();
    }
}
