package dev.postern.app.check;

import dev.postern.policy.net.AddressRanges;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;

/**
 * The address findings of the kinds whose executor judges addresses before it dials (HTTP targets,
 * SQL databases): each address the host resolves to, judged by the kernel's {@link AddressRanges},
 * the executors' own table, so the check and the call agree. Names are resolved here, now: DNS may
 * answer differently where and when the gateway runs. Stateless.
 */
final class AddressFindings {
    private AddressFindings() {
    }

    /**
     * The first address of {@code host} the executor would refuse, as a finding at {@code where}:
     * {@code metadata-address} for cloud metadata (refused always), {@code private-address-without-opt-in}
     * for a non-public one without the opt-in; {@code address-unresolved} when the name does not
     * resolve; nothing when {@code names} does not cover the host. {@code owner} is "target" or
     * "database", {@code name} the allowance's name.
     */
    static List<Finding> judged(String host, boolean allowPrivateAddresses, HostNames names, String where, String owner, String name) {
        String bare = unbracketed(host);
        if (!names.covers(bare)) {
            return List.of();
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(bare);
        } catch (UnknownHostException e) {
            return List.of(unresolved(where, owner + " " + name, host));
        }
        for (InetAddress a : addresses) {
            Optional<AddressRanges.Range> refused = AddressRanges.refusal(a, allowPrivateAddresses);
            if (refused.isEmpty()) {
                continue;
            }
            String is = bare.equals(a.getHostAddress()) ? " is" : " resolves to " + a.getHostAddress() + ",";
            if (refused.get().kind() == AddressRanges.Kind.METADATA) {
                return List.of(Finding.error("metadata-address", where, owner + " " + name + ": " + host + is
                        + " in " + refused.get() + ", which calls never reach, \"allowPrivateAddresses\" or not"));
            }
            return List.of(Finding.error("private-address-without-opt-in", where, owner + " " + name + ": " + host + is
                    + " a non-public address; calls are refused at connect time unless the " + owner
                    + " says \"allowPrivateAddresses\": true"));
        }
        return List.of();
    }

    /** For hosts no address rule applies to (SSH): only whether the name resolves. */
    static List<Finding> resolvable(String host, HostNames names, String where, String subject) {
        String bare = unbracketed(host);
        if (!names.covers(bare)) {
            return List.of();
        }
        try {
            InetAddress.getAllByName(bare);
            return List.of();
        } catch (UnknownHostException e) {
            return List.of(unresolved(where, subject, host));
        }
    }

    private static Finding unresolved(String where, String subject, String host) {
        return Finding.warning("address-unresolved", where, subject + ": " + host + " does not resolve here");
    }

    static String unbracketed(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}
