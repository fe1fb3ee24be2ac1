/** Strict JSON: one value per frame, no duplicate keys, no lone surrogates, bounded sizes. */
package dev.postern.protocol.json;
