package dev.postern.executor.http;

import dev.postern.policy.net.AddressRanges;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A host name resolved to an address the target may not reach. It extends
 * {@link UnknownHostException} so that HttpClient treats it as a failed resolution and dials
 * nothing; the message names the host, the address and the range (for the operator), never a secret;
 * {@link #inWords()} says the same without host, address or block (for the agent).
 */
final class AddressRefusedException extends UnknownHostException {
    private static final long serialVersionUID = 1L;

    private final String inWords;

    AddressRefusedException(String host, InetAddress address, AddressRanges.Range range, boolean allowPrivate) {
        super(message(host, address, range, allowPrivate));
        this.inWords = "its host resolves to a " + range.what() + " address, "
                + (range.kind() == AddressRanges.Kind.METADATA ? "and cloud metadata addresses are refused always"
                : allowPrivate ? "which is refused" : "and the target does not allow private addresses");
    }

    /** Why the address was refused, naming no host, address or block. */
    String inWords() {
        return inWords;
    }

    private static String message(String host, InetAddress address, AddressRanges.Range range, boolean allowPrivate) {
        String text = host + " resolves to " + address.getHostAddress() + ", in " + range;
        if (range.kind() == AddressRanges.Kind.METADATA) {
            return text + "; cloud metadata addresses are refused always";
        }
        return allowPrivate ? text : text + "; the target does not allow private addresses";
    }
}
