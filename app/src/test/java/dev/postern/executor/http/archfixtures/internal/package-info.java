/** Architecture-rule fixtures: an executor module's internal package. Never run. */
package dev.postern.executor.http.archfixtures.internal;
