package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postern.policy.json.JsonValue.JsonObject;
import dev.postern.policy.json.JsonValue.JsonString;
import dev.postern.policy.json.Pins;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.model.UpstreamTool;
import dev.postern.protocol.tools.ToolCatalog;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import dev.postern.policy.model.Allowance;
import org.junit.jupiter.api.Test;

/** When the live catalog tells the client its tools changed: only for a change the client could have seen before. */
class LiveCatalogTest {
    private static final JsonObject ECHO = new JsonObject(Map.of("name", new JsonString("echo"),
            "inputSchema", new JsonObject(Map.of("type", new JsonString("object")))));
    private static final UpstreamServer SERVER = new UpstreamServer("hostile", List.of("/bin/true"), "/", Map.of(),
            Duration.ofSeconds(5), Duration.ofSeconds(5), 1 << 20,
            List.of(new UpstreamTool("echo", Pins.of(ECHO), false, Map.of())), Optional.empty());
    private static final Policy POLICY = Policy.of(SERVER);

    private static LiveCatalog catalog(Duration wait, java.util.function.Consumer<BiConsumer<Allowance, LiveTools.Listing>> start) {
        return new LiveCatalog(() -> new ToolCatalog(Gateway.kinds(), POLICY), List.of(SERVER), wait, start);
    }

    private static boolean offersEcho(ToolCatalog catalog) {
        return catalog.describeAll().toString().contains("hostile__echo");
    }

    @Test
    void aListingHeardFromAnotherThreadWhileTheFirstFrameWaitsIsInThatFrameAndAnnouncesNothing() throws Exception {
        AtomicReference<BiConsumer<Allowance, LiveTools.Listing>> listener = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        LiveCatalog live = catalog(Duration.ofSeconds(20), l -> {
            listener.set(l);
            started.countDown();
        });
        AtomicInteger announced = new AtomicInteger();
        live.onChange(announced::incrementAndGet);
        Thread source = new Thread(() -> {
            try {
                started.await();
                listener.get().accept(SERVER, new LiveTools.Listing.Listed(List.of(ECHO)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        source.start();
        ToolCatalog first = live.get();
        source.join(TimeUnit.SECONDS.toMillis(20));
        assertTrue(offersEcho(first), "the first frame waited for the listing: " + first.describeAll());
        assertEquals(0, announced.get(), "the client saw this listing in its first tools/list; nothing changed for it");
    }

    @Test
    void aListingThatChangesTheToolsAfterTheFirstFrameIsAnnouncedOnceAndOneThatChangesNothingIsNot() {
        AtomicReference<BiConsumer<Allowance, LiveTools.Listing>> listener = new AtomicReference<>();
        LiveCatalog live = catalog(Duration.ofMillis(1), listener::set);
        AtomicInteger announced = new AtomicInteger();
        live.onChange(announced::incrementAndGet);
        ToolCatalog first = live.get();
        assertTrue(!offersEcho(first), "still pending when the first frame gave up waiting");
        listener.get().accept(SERVER, new LiveTools.Listing.Listed(List.of(ECHO)));
        assertEquals(1, announced.get());
        assertTrue(offersEcho(live.get()));
        listener.get().accept(SERVER, new LiveTools.Listing.Listed(List.of(ECHO)));
        assertEquals(1, announced.get(), "the same listing again changes nothing the client sees");
        listener.get().accept(SERVER, new LiveTools.Listing.Unavailable("exited"));
        assertEquals(2, announced.get(), "the tool going away is a change");
    }
}
