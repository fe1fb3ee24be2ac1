package dev.postern.protocol.mcp;

import java.util.Objects;
import java.util.Optional;

/**
 * Where one connection stands: its {@link Era}, and in the handshake era its phase and the
 * negotiated protocol revision. A value: each transition returns a new one, and {@link McpServer}
 * holds the current one. Which methods a phase admits is {@link #admits}.
 */
record Lifecycle(Era era, Phase phase, Optional<String> negotiatedVersion) {

    /** The handshake era's phases; the stateless era has none. */
    enum Phase { AWAITING_INITIALIZE, AWAITING_INITIALIZED, READY }

    /** What a handshake-era method needs before it is served. */
    enum Needs { NOTHING, INITIALIZE, INITIALIZED }

    /** The only revision in which JSON-RPC batches exist. */
    static final String BATCH_VERSION = "2025-03-26";

    Lifecycle {
        Objects.requireNonNull(era, "era");
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(negotiatedVersion, "negotiatedVersion");
    }

    static Lifecycle start() {
        return new Lifecycle(Era.UNDECIDED, Phase.AWAITING_INITIALIZE, Optional.empty());
    }

    /** After a valid {@code initialize}: the handshake era, waiting for {@code notifications/initialized}. */
    Lifecycle initialized(String version) {
        return new Lifecycle(Era.HANDSHAKE, Phase.AWAITING_INITIALIZED, Optional.of(version));
    }

    /** After {@code notifications/initialized} in its place; otherwise unchanged. */
    Optional<Lifecycle> ready() {
        return era == Era.HANDSHAKE && phase == Phase.AWAITING_INITIALIZED
                ? Optional.of(new Lifecycle(era, Phase.READY, negotiatedVersion))
                : Optional.empty();
    }

    /** After the first stateless-era request that fixes the era. */
    Lifecycle stateless() {
        return new Lifecycle(Era.STATELESS, phase, negotiatedVersion);
    }

    boolean initializeAllowed() {
        return phase == Phase.AWAITING_INITIALIZE;
    }

    boolean batchesAllowed() {
        return era == Era.HANDSHAKE && negotiatedVersion.filter(BATCH_VERSION::equals).isPresent();
    }

    /** Empty when a handshake-era method with these needs may be served now, else the refusal. */
    Optional<Refusal> admits(Needs needs) {
        if (needs == Needs.NOTHING) {
            return Optional.empty();
        }
        if (phase == Phase.AWAITING_INITIALIZE) {
            return Optional.of(Refusal.NOT_INITIALIZED);
        }
        if (needs == Needs.INITIALIZED && phase != Phase.READY) {
            return Optional.of(Refusal.NOT_READY);
        }
        return Optional.empty();
    }

    /** Why a lifecycle refuses a method, with the message the client sees. */
    enum Refusal {
        NOT_INITIALIZED("send initialize first; only ping is served before it"),
        NOT_READY("send notifications/initialized before calling a tool");

        final String message;

        Refusal(String message) {
            this.message = message;
        }
    }
}
