package dev.postern.executor.mcp;

import dev.postern.fixtures.contract.ActionExecutorContract;
import dev.postern.fixtures.contract.ExpectedFailure;
import dev.postern.policy.AuthorizedUpstreamCall;
import dev.postern.policy.model.LiveTools.Listing;
import dev.postern.policy.model.UpstreamServer;
import dev.postern.policy.outcome.FailureCode;
import dev.postern.policy.port.ActionExecutor;
import dev.postern.policy.port.CredentialStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/**
 * The executor contract for upstream MCP calls, against the tests' throwaway upstream in its own JVM:
 * an effect is one {@code tools/call} the upstream read (its log), the credential reaches it in its
 * environment, and a result over the cap is refused whole (declared: a JSON result cannot be cut).
 */
class McpActionExecutorContractTest extends ActionExecutorContract<AuthorizedUpstreamCall> {
    /** The cap: {@code big} answers with twice as many characters. */
    private static final long CAP = 4096;

    @TempDir
    Path dir;

    private Harness harness;
    private UpstreamServer server;

    /** One server per test, its log in the test's directory, its secret the kit's credential. */
    private UpstreamServer server() {
        if (server == null) {
            harness = new Harness(dir);
            // A one-second bound per call: C03 waits it out, and C11's eight calls all arrive well within it.
            server = harness.server("normal", Duration.ofSeconds(1), CAP, CREDENTIAL);
        }
        return server;
    }

    @Override
    protected ActionExecutor<AuthorizedUpstreamCall> createExecutor(CredentialStore credentials) {
        McpActionExecutor executor = new McpActionExecutor(List.of(server()), credentials, Harness.CODEC, Harness.SCHEMAS, harness.sink,
                harness.diagnostics, "contract");
        // Started and listed before the kit's clock runs: a JVM's start is not a call's latency.
        executor.start((allowance, listing) -> harness.listings.add(listing));
        Harness.waitFor("the upstream is listed", () -> harness.lastListing() instanceof Listing.Listed);
        return executor;
    }

    @Override
    protected AuthorizedUpstreamCall normalPermit(String marker) {
        return Harness.permit(server(), "echo", "{\"m\":\"" + marker + "\"}");
    }

    @Override
    protected AuthorizedUpstreamCall stallingPermit() {
        return Harness.permit(server(), "sleep", "{}");
    }

    @Override
    protected Duration deadlineOf(AuthorizedUpstreamCall permit) {
        return permit.server().timeout();
    }

    @Override
    protected AuthorizedUpstreamCall largeOutputPermit() {
        return Harness.permit(server(), "big", "{\"n\":" + (2 * CAP) + "}");
    }

    @Override
    protected long outputCapOf(AuthorizedUpstreamCall permit) {
        return permit.server().maxResponseBytes();
    }

    @Override
    protected OversizeOutput oversizeOutput() {
        return OversizeOutput.REFUSED_WHOLE;
    }

    @Override
    protected AuthorizedUpstreamCall secretEchoingPermit() {
        return Harness.permit(server(), "secret", "{}");
    }

    @Override
    protected List<ExpectedFailure<AuthorizedUpstreamCall>> failingPermits() {
        return List.of(
                new ExpectedFailure<>(Harness.permit(server(), "badshape", "{}"), FailureCode.UPSTREAM_PROTOCOL_ERROR,
                        "a result that is no CallToolResult"),
                new ExpectedFailure<>(Harness.permit(server(), "rpcerror", "{}"), FailureCode.EXECUTOR_FAILED,
                        "a JSON-RPC error whose message holds the credential"),
                new ExpectedFailure<>(Harness.permit(server(), "crash", "{}"), FailureCode.UPSTREAM_UNAVAILABLE,
                        "an upstream that exits mid-call"));
    }

    @Override
    protected AuthorizedUpstreamCall concurrentPermit(String marker) {
        // The upstream holds every "meet" answer until all of the kit's concurrent calls have arrived.
        return Harness.permit(server(), "meet", "{\"m\":\"" + marker + "\",\"n\":" + CONCURRENT_CALLS + "}");
    }

    @Override
    protected int effectsObserved() {
        server();
        return (int) harness.log().lines().filter(line -> line.contains("\"tools/call\"")).count();
    }
}
