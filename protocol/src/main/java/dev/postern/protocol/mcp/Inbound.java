package dev.postern.protocol.mcp;

import dev.postern.policy.action.Action;
import dev.postern.policy.port.Rejection;
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

    /** A tool call that passed every protocol and schema check: the policy decides next. */
    record Execute(RequestId id, Action action, String frameSha256) implements Inbound {
        public Execute {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(frameSha256, "frameSha256");
        }
    }

    /** The client cancelled request {@code id}: abort it if in flight and send no response for it. */
    record Cancel(RequestId id) implements Inbound {
        public Cancel {
            Objects.requireNonNull(id, "id");
        }
    }

    /** A notification that needs nothing done; {@code unexpected} ones are worth a line on stderr. */
    record Ignore(String why, boolean unexpected) implements Inbound {
        public Ignore {
            Objects.requireNonNull(why, "why");
        }
    }
}
