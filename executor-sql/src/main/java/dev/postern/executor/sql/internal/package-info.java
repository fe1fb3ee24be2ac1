/**
 * What {@code executor-sql} must make public for the PostgreSQL driver, which creates its socket
 * factory by class name, and for nothing else: no class outside this module may use this package
 * (ArchitectureRules.AN_EXECUTORS_INTERNAL_PACKAGE_IS_ITS_OWN). Depends on policy only.
 */
package dev.postern.executor.sql.internal;
