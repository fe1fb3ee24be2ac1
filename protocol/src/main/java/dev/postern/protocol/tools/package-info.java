/**
 * The tool catalog: each tool's input and output schema, the validation of arguments against the
 * input schema (networknt, JSON Schema 2020-12), the binders that turn valid arguments into the
 * kernel's typed actions, and the rendering of outcomes and denials as tool results.
 */
package dev.postern.protocol.tools;
