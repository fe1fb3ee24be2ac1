package dev.postern.policy.model;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One allowlisted tool of an upstream MCP server: its name as the upstream lists it, the pin of the
 * definition the operator reviewed ({@code sha256:} and 64 hex digits, see {@code UpstreamPins}),
 * whether each call needs a human's approval, and the operator's narrowing of its arguments.
 */
public record UpstreamTool(String name, String pin, boolean confirm, Map<String, ArgNarrowing> args) {
    /** Upstream tool names that can be offered unchanged (DESIGN §5). */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    public static final Pattern PIN = Pattern.compile("sha256:[0-9a-f]{64}");
    /** The longest tool name common clients accept. */
    public static final int MAX_EXPOSED_NAME = 64;

    public UpstreamTool {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("upstream tool name must match " + NAME.pattern() + ", got " + Names.quote(name));
        }
        if (pin == null || !PIN.matcher(pin).matches()) {
            throw new IllegalArgumentException("tool " + name + ": pin must be sha256: and 64 lower-case hex digits"
                    + " (postern upstream pin prints it)");
        }
        Objects.requireNonNull(args, "args");
        args = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(args));
        args.forEach((k, v) -> Objects.requireNonNull(v, "args " + k));
    }
}
