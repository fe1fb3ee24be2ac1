/**
 * The audit journal adapter: decisions.jsonl and actions.jsonl, append-only JSON Lines, each row
 * chained to the one before by SHA-256 (DESIGN §6), and the verifier behind {@code audit verify}.
 */
package dev.postern.app.journal;
