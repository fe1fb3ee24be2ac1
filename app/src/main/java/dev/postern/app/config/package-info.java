/**
 * Loading the configuration file: schema validation (the schema ships in the jar), reference
 * checks, and building the kernel's {@link dev.postern.policy.model.Policy}. Every error names the
 * file, the JSON pointer and what was expected; a config that does not load starts nothing.
 */
package dev.postern.app.config;
