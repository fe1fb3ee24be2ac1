/**
 * Loading the configuration file: schema validation (the schema ships in the jar), reference
 * checks, and building the kernel's {@link dev.postern.policy.model.Policy}, each kind's member read by
 * its {@link dev.postern.app.config.KindSection}. Every error names the
 * file, the JSON pointer and what was expected; a config that does not load starts nothing.
 *
 * <p>Depends on the kernel's model, the protocol's strict JSON, Jackson and networknt; not on an
 * executor, the journal, the transport or the credential store (it names credentials, it never
 * reads them).
 */
package dev.postern.app.config;
