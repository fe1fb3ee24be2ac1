/**
 * The tool catalog: each tool's input and output schema, the validation of arguments against the
 * input schema (networknt, JSON Schema 2020-12), the binders that turn valid arguments into the
 * kernel's typed actions, and the rendering of outcomes and denials as tool results.
 *
 * <p>Depends on {@code policy} (actions, the policy model, outcomes), Jackson and networknt; not on
 * {@code transport}, and never on an executor or {@code app}
 * ({@code ArchitectureRules.PROTOCOL_DEPENDS_ON_NEITHER_EXECUTORS_NOR_APP}).
 */
package dev.postern.protocol.tools;
