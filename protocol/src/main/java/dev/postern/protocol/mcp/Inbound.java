package dev.postern.protocol.mcp;

import dev.postern.policy.action.Action;
import dev.postern.policy.port.Rejection;
import dev.postern.protocol.approval.ApprovalRoute;
import dev.postern.protocol.jsonrpc.RequestId;
import java.util.Objects;
import java.util.Optional;

/** What one inbound frame became, for the app's dispatcher to carry out. */
public sealed interface Inbound {

    /** Write {@code line} and read on; {@code rejection} is journaled when the frame was refused. */
    record Respond(String line, Optional<Rejection> rejection) implements Inbound {
        public Respond {
            Objects.requireNonNull(line, "line");
            Objects.requireNonNull(rejection, "rejection");
        }
    }

    /** Write {@code line}, journal {@code rejection}, and close the session. */
    record Close(String line, Rejection rejection) implements Inbound {
        public Close {
            Objects.requireNonNull(line, "line");
            Objects.requireNonNull(rejection, "rejection");
        }
    }

    /**
     * A tool call that passed every protocol and schema check: the policy decides next. {@code tool}
     * is the tool's name; {@code approval} says how a human can be asked, should a rule need it.
     */
    record Execute(RequestId id, Action action, String frameSha256, String tool, ApprovalRoute approval,
            java.util.Optional<ProgressToken> progressToken) implements Inbound {
        public Execute {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(frameSha256, "frameSha256");
            Objects.requireNonNull(tool, "tool");
            Objects.requireNonNull(approval, "approval");
            Objects.requireNonNull(progressToken, "progressToken");
        }

        /** A call whose client asked for no progress. */
        public Execute(RequestId id, Action action, String frameSha256, String tool, ApprovalRoute approval) {
            this(id, action, frameSha256, tool, approval, java.util.Optional.empty());
        }

        /** A call on a connection where no human can be asked. */
        public Execute(RequestId id, Action action, String frameSha256) {
            this(id, action, frameSha256, "unnamed", new ApprovalRoute.Unable("no human can be asked on this connection"));
        }
    }

    /** The client cancelled request {@code id}: abort it if in flight and send no response for it. */
    record Cancel(RequestId id) implements Inbound {
        public Cancel {
            Objects.requireNonNull(id, "id");
        }
    }

    /**
     * A JSON-RPC batch (2025-03-26 sessions only) whose every element passed the JSON-RPC checks
     * before any ran. The parts are never {@link Close} or {@link Batch}; their responses go out as
     * one array line, after the last part is answered, and not at all when no part has a response.
     */
    record Batch(java.util.List<Inbound> parts) implements Inbound {
        public Batch {
            parts = java.util.List.copyOf(parts);
            if (parts.isEmpty()) {
                throw new IllegalArgumentException("a batch has at least one part");
            }
            for (Inbound part : parts) {
                if (part instanceof Close || part instanceof Batch) {
                    throw new IllegalArgumentException("a batch part cannot be " + part.getClass().getSimpleName());
                }
            }
        }
    }

    /** A notification that needs nothing done; {@code unexpected} ones are worth a line on stderr. */
    record Ignore(String why, boolean unexpected) implements Inbound {
        public Ignore {
            Objects.requireNonNull(why, "why");
        }
    }
}
