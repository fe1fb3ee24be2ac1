package dev.postern.app;

import dev.postern.policy.port.ApprovalRecord.Channel;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The pending approvals of one gateway process that a channel Postern owns may answer (README,
 * "Approval channels"): each held action has a short id (for {@code postern approvals}), a page secret
 * of 128 random bits (its loopback page's path), a CSRF token bound to it, the digest of the exact
 * action, and an expiry. The first answer wins — from the client's elicitation, the page or the
 * terminal — and is delivered once; a later one, one naming another digest, or one after expiry is
 * refused. A held action ends (answered, expired, or withdrawn by its call) exactly once, and every
 * listener is told. Thread-safe.
 */
final class LocalApprovals implements AutoCloseable {
    private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
    /** How many ended page secrets are remembered, so their path answers 410 rather than 404. */
    static final int MAX_ENDED = 4096;

    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Held> byId = new ConcurrentHashMap<>();
    private final Map<String, Held> bySecret = new ConcurrentHashMap<>();
    private final Map<String, Boolean> ended = java.util.Collections.synchronizedMap(new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_ENDED;
        }
    });
    /** Made at the first held action: a session that never holds one starts no thread. */
    private ScheduledExecutorService expiries;
    private final java.util.List<Listener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Told when a held action is opened and when it ends (the page and the terminal's files follow). */
    interface Listener {
        void opened(Held held);

        void ended(Held held);
    }

    /** What ended a held action: an answer through a channel, or its expiry. */
    record Answer(boolean approved, Channel channel) {
        Answer {
            Objects.requireNonNull(channel, "channel");
        }
    }

    /** What a human is shown about one held action, and what ties an answer to it. */
    record Shown(String tool, String rule, String client, String message, String digest) {
        Shown {
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(client, "client");
            Objects.requireNonNull(message, "message");
            if (digest == null || !DIGEST.matcher(digest).matches()) {
                throw new IllegalArgumentException("digest must be sha256: and 64 hex digits");
            }
        }
    }

    /** One held action. {@link #answer()} completes once: with the first answer, or empty at expiry or withdrawal. */
    static final class Held {
        private final String id;
        private final String secret;
        private final String csrf;
        private final Shown shown;
        private final Instant expiry;
        private final CompletableFuture<Optional<Answer>> answer = new CompletableFuture<>();

        private Held(String id, String secret, String csrf, Shown shown, Instant expiry) {
            this.id = id;
            this.secret = secret;
            this.csrf = csrf;
            this.shown = shown;
            this.expiry = expiry;
        }

        /** The short id {@code postern approvals} names it by. */
        String id() {
            return id;
        }

        /** The page's secret path segment (128 random bits). */
        String secret() {
            return secret;
        }

        /** The CSRF token its page's form carries. */
        String csrf() {
            return csrf;
        }

        Shown shown() {
            return shown;
        }

        Instant expiry() {
            return expiry;
        }

        /** The first answer, or empty when it expired or its call withdrew it. */
        CompletableFuture<Optional<Answer>> answer() {
            return answer;
        }
    }

    LocalApprovals(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    private synchronized ScheduledExecutorService expiries() {
        if (expiries == null) {
            expiries = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "postern-approval-expiry");
                t.setDaemon(true);
                return t;
            });
        }
        return expiries;
    }

    void listen(Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** Holds one action for {@code lifetime}; its listeners (the page, the terminal's files) learn of it now. */
    Held open(Shown shown, Duration lifetime) {
        String id;
        do {
            id = HexFormat.of().formatHex(bytes(5));
        } while (byId.containsKey(id));
        Held held = new Held(id, Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(16)),
                Base64.getUrlEncoder().withoutPadding().encodeToString(bytes(16)), shown, clock.instant().plus(lifetime));
        byId.put(id, held);
        bySecret.put(held.secret, held);
        listeners.forEach(l -> l.opened(held));
        expiries().schedule(() -> end(held, Optional.empty()), Math.max(0, lifetime.toMillis()), TimeUnit.MILLISECONDS);
        return held;
    }

    /**
     * Answers the held action {@code id} names, if it is still held, unexpired and shows {@code digest};
     * true when this answer is the one that counts.
     */
    boolean answer(String id, String digest, boolean approved, Channel channel) {
        Held held = byId.get(id);
        if (held == null || !MessageDigest.isEqual(held.shown.digest().getBytes(), String.valueOf(digest).getBytes())) {
            return false;
        }
        if (clock.instant().isAfter(held.expiry)) {
            end(held, Optional.empty());
            return false;
        }
        return end(held, Optional.of(new Answer(approved, channel)));
    }

    /** Withdraws a held action (its call ended another way); its page answers 410 from now on. */
    void withdraw(Held held) {
        end(held, Optional.empty());
    }

    /**
     * Ends a held action for an answer that came another way (the client's own elicitation); true when
     * this ended it, false when the page or the terminal had answered first (their answer counts).
     */
    boolean claim(Held held) {
        return end(held, Optional.empty());
    }

    /** The held action whose page secret this is. */
    Optional<Held> bySecret(String secret) {
        return Optional.ofNullable(bySecret.get(secret));
    }

    /** The held action with this short id. */
    Optional<Held> byId(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Whether {@code secret} was a page's, now answered, expired or withdrawn. */
    boolean endedSecret(String secret) {
        return ended.containsKey(secret);
    }

    /** Every action held now. */
    java.util.Collection<Held> held() {
        return java.util.List.copyOf(byId.values());
    }

    private boolean end(Held held, Optional<Answer> answer) {
        if (byId.remove(held.id, held)) {
            bySecret.remove(held.secret);
            ended.put(held.secret, Boolean.TRUE);
            held.answer.complete(answer);
            listeners.forEach(l -> l.ended(held));
            return true;
        }
        return false;
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    /** Ends every held action unanswered and stops the expiry thread. */
    @Override
    public void close() {
        held().forEach(this::withdraw);
        synchronized (this) {
            if (expiries != null) {
                expiries.shutdownNow();
            }
        }
    }
}
