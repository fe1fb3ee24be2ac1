package dev.postern.executor.sql.internal;

import dev.postern.policy.model.SqlDatabase;
import dev.postern.policy.net.AddressRanges;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Optional;
import javax.net.SocketFactory;

/**
 * The driver's socket factory (pgjdbc's {@code socketFactory}, instantiated by the driver with
 * {@link #argument}): each socket judges the address it is about to dial with the same rule as
 * {@code Dialing.checkAddresses} — {@code AddressRanges} with the database's {@code allowPrivateAddresses},
 * and loopback only when TLS is off — and refuses before connecting
 * ({@link DialRefusedException}). An address the driver left unresolved (a SOCKS proxy set in the
 * JVM) is refused too. Public only because the driver creates it by reflection; in {@code internal} so that nothing outside
 * this module can (ArchitectureRules.AN_EXECUTORS_INTERNAL_PACKAGE_IS_ITS_OWN).
 */
public final class DialCheckingSockets extends SocketFactory {
    private final String database;
    private final boolean allowPrivateAddresses;
    private final boolean loopbackOnly;

    /** The driver's constructor: {@code argument} is what {@link #argument} wrote. */
    public DialCheckingSockets(String argument) {
        String[] parts = argument.split(",", 3);
        if (parts.length != 3 || !parts[0].matches("private|public") || !parts[1].matches("tls|loopback")) {
            throw new IllegalArgumentException("not an argument of DialCheckingSockets: " + argument);
        }
        this.allowPrivateAddresses = parts[0].equals("private");
        this.loopbackOnly = parts[1].equals("loopback");
        this.database = parts[2];
    }

    /** The driver's {@code socketFactoryArg} for {@code db}: its address rule and name. */
    public static String argument(SqlDatabase db) {
        return (db.allowPrivateAddresses() ? "private" : "public") + ','
                + (db.tls().mode() == SqlDatabase.TlsMode.DISABLE ? "loopback" : "tls") + ',' + db.name();
    }

    @Override
    public Socket createSocket() {
        return new Socket() {
            @Override
            public void connect(SocketAddress endpoint, int timeout) throws IOException {
                judge(endpoint);
                super.connect(endpoint, timeout);
            }
        };
    }

    private void judge(SocketAddress endpoint) throws DialRefusedException {
        if (!(endpoint instanceof InetSocketAddress inet) || inet.isUnresolved() || inet.getAddress() == null) {
            throw new DialRefusedException("database " + database + ": the driver would dial " + endpoint
                    + " unresolved (through a proxy); only addresses judged here are dialed");
        }
        InetAddress a = inet.getAddress();
        Optional<AddressRanges.Range> refused = AddressRanges.refusal(a, allowPrivateAddresses);
        if (refused.isPresent()) {
            AddressRanges.Range r = refused.get();
            throw new DialRefusedException("database " + database + ": the address dialed, " + a.getHostAddress()
                    + ", is " + refusedBecause(r));
        }
        if (loopbackOnly && !a.isLoopbackAddress()) {
            throw new DialRefusedException("database " + database + ": TLS is off, so only a loopback address may be dialed, not "
                    + a.getHostAddress());
        }
    }

    // The driver calls only createSocket() and connect(); these complete SocketFactory's contract the same way.
    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    private Socket connected(InetSocketAddress to, InetSocketAddress from) throws IOException {
        Socket s = createSocket();
        try {
            if (from != null) {
                s.bind(from);
            }
            s.connect(to);
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** Why an address in {@code r} is not dialed: {@code in 10.0.0.0/8 (private), which needs "allowPrivateAddresses": true}. */
    public static String refusedBecause(AddressRanges.Range r) {
        return "in " + r.cidr() + " (" + r.what() + ")" + (r.kind() == AddressRanges.Kind.METADATA
                ? ", which is never reached" : ", which needs \"allowPrivateAddresses\": true");
    }
}
