/**
 * The composition root: the command line, the wiring of every adapter by hand
 * ({@link dev.postern.app.Gateway}), the stdio session loop, and the
 * {@link dev.postern.app.Dispatcher} — the only class that calls an executor, and only with the
 * permit the policy just returned. May depend on every module; nothing depends on it.
 */
package dev.postern.app;
