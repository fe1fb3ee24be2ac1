package dev.postern.policy.net;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The one table of address ranges an executor judges before it dials (HTTP targets, SQL
 * databases): cloud metadata (refused always), non-public ranges (refused unless the target or
 * database allows private addresses), the
 * IPv6 forms that embed an IPv4 address (judged by that address), and what is public. Follows the
 * IANA special-purpose registries; where a block mixes reachable and unreachable parts, the whole
 * block is refused. Immutable and thread-safe.
 */
public final class AddressRanges {

    /** What a matching row means for the address. */
    public enum Kind {
        /** A cloud metadata endpoint: never dialed, whatever the target says. */
        METADATA,
        /** Not on the public internet: dialed only for targets that allow private addresses. */
        NON_PUBLIC,
        /** An IPv6 form carrying an IPv4 address; the embedded address decides. */
        EMBEDS_IPV4,
        /** Public: dialed. */
        PUBLIC
    }

    /** One row: a CIDR block, what it means, and (for {@link Kind#EMBEDS_IPV4}) where the IPv4 address sits. */
    public static final class Range {
        private final String cidr;
        private final Kind kind;
        private final String what;
        private final byte[] network;
        private final int bits;
        private final int embeddedOffset;

        private Range(String cidr, Kind kind, String what, int embeddedOffset) {
            this.cidr = cidr;
            this.kind = kind;
            this.what = what;
            int slash = cidr.indexOf('/');
            this.network = parseLiteral(cidr.substring(0, slash));
            this.bits = Integer.parseInt(cidr.substring(slash + 1));
            this.embeddedOffset = embeddedOffset;
            if (bits < 0 || bits > network.length * 8) {
                throw new IllegalArgumentException("bad prefix length in " + cidr);
            }
        }

        public String cidr() {
            return cidr;
        }

        public Kind kind() {
            return kind;
        }

        public String what() {
            return what;
        }

        public boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[full] & mask) == (network[full] & mask);
        }

        byte[] embedded(byte[] address) {
            return Arrays.copyOfRange(address, embeddedOffset, embeddedOffset + 4);
        }

        @Override
        public String toString() {
            return cidr + " (" + what + ')';
        }
    }

    private static Range metadata(String cidr, String what) {
        return new Range(cidr, Kind.METADATA, what, -1);
    }

    private static Range nonPublic(String cidr, String what) {
        return new Range(cidr, Kind.NON_PUBLIC, what, -1);
    }

    private static Range embeds(String cidr, String what, int offset) {
        return new Range(cidr, Kind.EMBEDS_IPV4, what, offset);
    }

    private static Range publicRange(String cidr, String what) {
        return new Range(cidr, Kind.PUBLIC, what, -1);
    }

    /** First match wins, so specific rows precede the blocks that contain them. */
    public static final List<Range> TABLE = List.of(
            metadata("169.254.169.254/32", "cloud metadata: AWS, GCP, Azure, OCI and others"),
            metadata("169.254.170.2/32", "cloud metadata: AWS ECS task credentials"),
            metadata("100.100.100.200/32", "cloud metadata: Alibaba Cloud"),
            metadata("fd00:ec2::254/128", "cloud metadata: AWS over IPv6"),

            nonPublic("0.0.0.0/8", "unspecified, \"this network\""),
            nonPublic("10.0.0.0/8", "private, RFC 1918"),
            nonPublic("100.64.0.0/10", "shared address space, CGNAT"),
            nonPublic("127.0.0.0/8", "loopback"),
            nonPublic("169.254.0.0/16", "link-local"),
            nonPublic("172.16.0.0/12", "private, RFC 1918"),
            nonPublic("192.0.0.0/24", "IETF protocol assignments"),
            nonPublic("192.0.2.0/24", "documentation, TEST-NET-1"),
            nonPublic("192.88.99.0/24", "6to4 relay anycast, deprecated"),
            nonPublic("192.168.0.0/16", "private, RFC 1918"),
            nonPublic("198.18.0.0/15", "benchmarking"),
            nonPublic("198.51.100.0/24", "documentation, TEST-NET-2"),
            nonPublic("203.0.113.0/24", "documentation, TEST-NET-3"),
            nonPublic("224.0.0.0/4", "multicast"),
            nonPublic("240.0.0.0/4", "reserved, including broadcast"),
            publicRange("0.0.0.0/0", "public IPv4"),

            nonPublic("::/128", "unspecified"),
            nonPublic("::1/128", "loopback"),
            embeds("::ffff:0:0/96", "IPv4-mapped", 12),
            embeds("64:ff9b::/96", "NAT64 well-known prefix", 12),
            nonPublic("64:ff9b:1::/48", "local-use NAT64"),
            nonPublic("100::/64", "discard-only"),
            nonPublic("2001::/23", "IETF protocol assignments: Teredo, benchmarking, ORCHID"),
            nonPublic("2001:db8::/32", "documentation"),
            embeds("2002::/16", "6to4", 2),
            nonPublic("3fff::/20", "documentation"),
            nonPublic("fc00::/7", "unique local"),
            nonPublic("fe80::/10", "link-local"),
            nonPublic("fec0::/10", "site-local, deprecated"),
            nonPublic("ff00::/8", "multicast"),
            publicRange("2000::/3", "public IPv6, global unicast"),
            nonPublic("::/0", "reserved, outside global unicast 2000::/3"));

    private AddressRanges() {
    }

    /**
     * The row that decides {@code address} (4 or 16 bytes). An embedded IPv4 address is decided
     * by its own row, so the answer is never an {@link Kind#EMBEDS_IPV4} row.
     */
    public static Range classify(byte[] address) {
        for (Range r : TABLE) {
            if (r.contains(address)) {
                return r.kind == Kind.EMBEDS_IPV4 ? classify(r.embedded(address)) : r;
            }
        }
        throw new IllegalArgumentException("not an IP address: " + address.length + " bytes");
    }

    /** The row that refuses {@code address} for a target, or empty when it may be dialed. */
    public static Optional<Range> refusal(InetAddress address, boolean allowPrivateAddresses) {
        Range r = classify(address.getAddress());
        if (r.kind == Kind.METADATA || (r.kind == Kind.NON_PUBLIC && !allowPrivateAddresses)) {
            return Optional.of(r);
        }
        return Optional.empty();
    }

    /** Parses a numeric literal (never a name) to its bytes, keeping IPv4-mapped IPv6 at 16 bytes. */
    public static byte[] parseLiteral(String literal) {
        boolean v6 = literal.indexOf(':') >= 0;
        if (!v6 && !literal.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}")) {
            throw new IllegalArgumentException("not an address literal: " + literal);
        }
        InetAddress parsed;
        try {
            parsed = InetAddress.getByName(v6 ? '[' + literal + ']' : literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address literal: " + literal, e);
        }
        byte[] bytes = parsed.getAddress();
        if (v6 && parsed instanceof Inet4Address) {
            // The JDK turns ::ffff:a.b.c.d into an IPv4 address; the table keeps the IPv6 form.
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(bytes, 0, mapped, 12, 4);
            return mapped;
        }
        return bytes;
    }
}
