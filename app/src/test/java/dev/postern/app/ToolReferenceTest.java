package dev.postern.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.postern.app.samples.KindSamples;
import dev.postern.policy.model.LiveTools;
import dev.postern.policy.model.Policy;
import dev.postern.protocol.tools.ToolCatalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/tools.json is the tool reference the README points to: exactly what {@code tools/list}
 * answers, with every kind registered in {@link Gateway#KINDS}, for the example policy below: each kind's
 * example allowance from its {@link KindSamples} (one of them offers a typed tool). This test fails
 * when the two drift; run it with {@code -Dpostern.writeToolReference=true} to rewrite the file after an intended change.
 */
class ToolReferenceTest {
    private static final Path REFERENCE = Path.of("..", "docs", "tools.json");

    /** One example allowance of every registered kind, in registration order, from the kinds' own samples. */
    static Policy examplePolicy() {
        return new Policy(Gateway.kinds().all().stream().map(kind -> KindSamples.of(kind).exampleAllowance()).toList());
    }

    /** What the kinds' run-time sources list for the example allowances (the upstream's one tool, as reviewed). */
    static LiveTools exampleLive() {
        LiveTools live = LiveTools.none();
        for (var kind : Gateway.kinds().all()) {
            live = KindSamples.of(kind).listed(live);
        }
        return live;
    }

    /** The example policy's catalog, its upstream tool listed. */
    static ToolCatalog exampleCatalog() {
        return new ToolCatalog(Gateway.kinds(), examplePolicy(), exampleLive());
    }

    @Test
    void theExamplePolicyOffersEveryRegisteredKindsTool() {
        List<String> offered = exampleCatalog().tools().stream().map(t -> t.name()).toList();
        for (var kind : Gateway.kinds().all()) {
            List<String> own = kind.tools(examplePolicy(), exampleLive()).stream().map(t -> t.name()).toList();
            assertTrue(!own.isEmpty() && offered.containsAll(own), () -> "the example policy has no allowance of " + kind.toolName()
                    + ", so docs/tools.json would not document it");
        }
    }

    @Test
    void theDocumentedToolReferenceIsWhatToolsListAnswers() throws Exception {
        String rendered = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(exampleCatalog().describeAll()) + "\n";
        if (Boolean.getBoolean("postern.writeToolReference")) {
            Files.writeString(REFERENCE, rendered, StandardCharsets.UTF_8);
        }
        assertEquals(rendered, Files.readString(REFERENCE, StandardCharsets.UTF_8),
                "docs/tools.json is stale; rerun this test with -Dpostern.writeToolReference=true and review the diff");
    }
}
