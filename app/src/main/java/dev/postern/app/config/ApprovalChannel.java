package dev.postern.app.config;

import java.util.Locale;
import java.util.Optional;

/**
 * Who may answer a {@code confirm} rule's question (README, "Approval channels"): the MCP client's own
 * elicitation ({@link #CLIENT}, trusting the client to show it to a person), the channels Postern owns
 * and no client can answer ({@link #LOCAL}: the loopback approval page and {@code postern approvals}),
 * or the first answer from either ({@link #ANY}).
 */
public enum ApprovalChannel {
    CLIENT, LOCAL, ANY;

    /** The word the config file uses. */
    public String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The channel a config word names, if it names one. */
    public static Optional<ApprovalChannel> of(String word) {
        for (ApprovalChannel c : values()) {
            if (c.word().equals(word)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /** Whether the client's own elicitation may answer. */
    public boolean client() {
        return this != LOCAL;
    }

    /** Whether the page and the terminal may answer. */
    public boolean local() {
        return this != CLIENT;
    }
}
