/**
 * The {@code http_request} executor: an adapter from the kernel's
 * {@link dev.postern.policy.port.ActionExecutor} port to Apache HttpClient 5. The public entry
 * point is {@link dev.postern.executor.http.HttpActionExecutor}; everything else here is
 * package-private implementation (the address range table, the resolver that applies it, the
 * credential mask, the client configuration).
 *
 * <p>Depends only on {@code policy} and httpclient5: never on Jackson, {@code protocol} or
 * {@code transport}. It sees a typed permit, never JSON, and it is the only code in Postern that
 * opens an HTTP connection.
 */
package dev.postern.executor.http;
