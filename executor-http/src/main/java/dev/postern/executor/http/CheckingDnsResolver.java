package dev.postern.executor.http;

import dev.postern.policy.net.AddressRanges;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apache.hc.client5.http.DnsResolver;

/**
 * The only way HttpClient learns which addresses to dial: resolves a host once, judges every
 * address against {@link AddressRanges}, and either hands back exactly the addresses it judged or
 * refuses the whole name when any one of them is refused (so a name that mixes public and private
 * answers cannot be used to reach the private one, and DNS rebinding gains nothing). Thread-safe.
 */
final class CheckingDnsResolver implements DnsResolver {

    /** Turns a host name or literal into addresses; the system resolver in production, a table in tests. */
    @FunctionalInterface
    interface Lookup {
        InetAddress[] lookup(String host) throws UnknownHostException;
    }

    static final Lookup SYSTEM = InetAddress::getAllByName;

    private final Lookup lookup;
    private final boolean allowPrivateAddresses;

    CheckingDnsResolver(Lookup lookup, boolean allowPrivateAddresses) {
        this.lookup = Objects.requireNonNull(lookup, "lookup");
        this.allowPrivateAddresses = allowPrivateAddresses;
    }

    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
        InetAddress[] addresses = lookup.lookup(host);
        if (addresses == null || addresses.length == 0) {
            throw new UnknownHostException(host + " resolves to no address");
        }
        addresses = addresses.clone();
        for (InetAddress address : addresses) {
            Optional<AddressRanges.Range> refused = AddressRanges.refusal(address, allowPrivateAddresses);
            if (refused.isPresent()) {
                throw new AddressRefusedException(host, address, refused.get(), allowPrivateAddresses);
            }
        }
        return addresses;
    }

    /** Overridden so that no address is ever left unresolved for the socket layer to look up again. */
    @Override
    public List<InetSocketAddress> resolve(String host, int port) throws UnknownHostException {
        List<InetSocketAddress> out = new ArrayList<>();
        for (InetAddress address : resolve(host)) {
            out.add(new InetSocketAddress(address, port));
        }
        return out;
    }

    /** Postern never needs a canonical name (no Kerberos); answering the name itself avoids a lookup. */
    @Override
    public String resolveCanonicalHostname(String host) {
        return host;
    }
}
