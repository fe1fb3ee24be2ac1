package dev.postern.policy.model;

import dev.postern.policy.json.JsonValue.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the gateway has learnt at run time of the allowances whose tools are known only once a server
 * answers (an upstream MCP server's {@code tools/list}): per allowance, its listing. An immutable
 * snapshot; a newer one replaces it whole. Static kinds never look here.
 */
public record LiveTools(Map<Key, Listing> listings) {

    /** One allowance, by its kind and name. */
    public record Key(Class<? extends Allowance> kind, String name) {
        public Key {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(name, "name");
        }

        public static Key of(Allowance allowance) {
            return new Key(allowance.getClass(), allowance.name());
        }
    }

    /** What is known of one allowance's tools. */
    public sealed interface Listing {
        /** Not answered yet (starting, or restarting). */
        record Pending() implements Listing {
        }

        /** The tool definitions as the server listed them, in its order. */
        record Listed(List<JsonObject> tools) implements Listing {
            public Listed {
                tools = List.copyOf(Objects.requireNonNull(tools, "tools"));
            }

            /** The definition named {@code name}, if the server lists one. */
            public Optional<JsonObject> tool(String name) {
                return tools.stream().filter(t -> t.string("name").filter(name::equals).isPresent()).findFirst();
            }
        }

        /** The server could not be started or listed; the reason is for the operator, in words. */
        record Unavailable(String reason) implements Listing {
            public Unavailable {
                Objects.requireNonNull(reason, "reason");
            }
        }
    }

    public LiveTools {
        listings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(listings, "listings")));
    }

    public static LiveTools none() {
        return new LiveTools(Map.of());
    }

    /** The listing of an allowance; {@link Listing.Pending} when nothing has been heard of it. */
    public Listing of(Allowance allowance) {
        return listings.getOrDefault(Key.of(allowance), new Listing.Pending());
    }

    /** A snapshot with one allowance's listing replaced. */
    public LiveTools with(Allowance allowance, Listing listing) {
        LinkedHashMap<Key, Listing> copy = new LinkedHashMap<>(listings);
        copy.put(Key.of(allowance), Objects.requireNonNull(listing, "listing"));
        return new LiveTools(copy);
    }
}
