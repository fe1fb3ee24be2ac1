package dev.postern.policy.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class AddressRangesTest {

    /** One address inside every row (and a few just outside), with the row that must decide it. */
    static final List<String[]> SAMPLES = List.of(
            new String[] {"169.254.169.254", "169.254.169.254/32"},
            new String[] {"169.254.170.2", "169.254.170.2/32"},
            new String[] {"100.100.100.200", "100.100.100.200/32"},
            new String[] {"fd00:ec2::254", "fd00:ec2::254/128"},
            new String[] {"0.0.0.0", "0.0.0.0/8"},
            new String[] {"0.255.255.255", "0.0.0.0/8"},
            new String[] {"10.255.1.2", "10.0.0.0/8"},
            new String[] {"100.64.0.1", "100.64.0.0/10"},
            new String[] {"100.127.255.254", "100.64.0.0/10"},
            new String[] {"127.0.0.1", "127.0.0.0/8"},
            new String[] {"127.255.0.9", "127.0.0.0/8"},
            new String[] {"169.254.1.1", "169.254.0.0/16"},
            new String[] {"172.16.0.1", "172.16.0.0/12"},
            new String[] {"172.31.255.255", "172.16.0.0/12"},
            new String[] {"192.0.0.8", "192.0.0.0/24"},
            new String[] {"192.0.2.10", "192.0.2.0/24"},
            new String[] {"192.88.99.1", "192.88.99.0/24"},
            new String[] {"192.168.1.1", "192.168.0.0/16"},
            new String[] {"198.18.0.1", "198.18.0.0/15"},
            new String[] {"198.19.255.255", "198.18.0.0/15"},
            new String[] {"198.51.100.7", "198.51.100.0/24"},
            new String[] {"203.0.113.9", "203.0.113.0/24"},
            new String[] {"224.0.0.1", "224.0.0.0/4"},
            new String[] {"239.255.255.250", "224.0.0.0/4"},
            new String[] {"240.0.0.1", "240.0.0.0/4"},
            new String[] {"255.255.255.255", "240.0.0.0/4"},
            new String[] {"93.184.216.34", "0.0.0.0/0"},
            new String[] {"11.0.0.1", "0.0.0.0/0"},
            new String[] {"100.63.255.255", "0.0.0.0/0"},
            new String[] {"100.128.0.0", "0.0.0.0/0"},
            new String[] {"172.15.255.255", "0.0.0.0/0"},
            new String[] {"172.32.0.0", "0.0.0.0/0"},
            new String[] {"192.169.0.0", "0.0.0.0/0"},
            new String[] {"198.20.0.0", "0.0.0.0/0"},
            new String[] {"223.255.255.255", "0.0.0.0/0"},
            new String[] {"::", "::/128"},
            new String[] {"::1", "::1/128"},
            new String[] {"::ffff:10.0.0.1", "10.0.0.0/8"},
            new String[] {"::ffff:8.8.8.8", "0.0.0.0/0"},
            new String[] {"::ffff:169.254.169.254", "169.254.169.254/32"},
            new String[] {"64:ff9b::7f00:1", "127.0.0.0/8"},
            new String[] {"64:ff9b::a9fe:a9fe", "169.254.169.254/32"},
            new String[] {"64:ff9b::808:808", "0.0.0.0/0"},
            new String[] {"64:ff9b:1::1", "64:ff9b:1::/48"},
            new String[] {"100::1", "100::/64"},
            new String[] {"2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::/23"},
            new String[] {"2001:2::1", "2001::/23"},
            new String[] {"2001:db8::1", "2001:db8::/32"},
            new String[] {"2002:c0a8:101::1", "192.168.0.0/16"},
            new String[] {"2002:808:808::1", "0.0.0.0/0"},
            new String[] {"3fff::1", "3fff::/20"},
            new String[] {"fc00::1", "fc00::/7"},
            new String[] {"fd12:3456::1", "fc00::/7"},
            new String[] {"fe80::1", "fe80::/10"},
            new String[] {"fec0::1", "fec0::/10"},
            new String[] {"ff02::1", "ff00::/8"},
            new String[] {"2606:4700::1111", "2000::/3"},
            new String[] {"2001:4860:4860::8888", "2000::/3"},
            new String[] {"::a00:1", "::/0"},
            new String[] {"4000::1", "::/0"});

    static Stream<Arguments> samples() {
        return SAMPLES.stream().map(s -> Arguments.of(s[0], s[1]));
    }

    @ParameterizedTest(name = "{0} is decided by {1}")
    @MethodSource("samples")
    void eachAddressIsDecidedByItsRange(String address, String cidr) {
        assertEquals(cidr, AddressRanges.classify(AddressRanges.parseLiteral(address)).cidr());
    }

    @Test
    void everyRowIsReachedByASample() {
        Set<String> decided = SAMPLES.stream().map(s -> s[1]).collect(Collectors.toSet());
        for (AddressRanges.Range row : AddressRanges.TABLE) {
            if (row.kind() == AddressRanges.Kind.EMBEDS_IPV4) {
                assertTrue(SAMPLES.stream().anyMatch(s -> row.contains(AddressRanges.parseLiteral(s[0]))),
                        "no sample embeds an IPv4 address through " + row);
            } else {
                assertTrue(decided.contains(row.cidr()), "no sample is decided by " + row);
            }
        }
    }

    @Test
    void loopbackIsRefusedUnlessTheTargetAllowsPrivateAddresses() throws UnknownHostException {
        InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});

        assertEquals("127.0.0.0/8", AddressRanges.refusal(loopback, false).orElseThrow().cidr());
        assertTrue(AddressRanges.refusal(loopback, true).isEmpty());
    }

    @Test
    void metadataIsRefusedEvenWhenPrivateAddressesAreAllowed() throws UnknownHostException {
        assertTrue(AddressRanges.refusal(InetAddress.getByName("169.254.169.254"), true).isPresent());
        assertTrue(AddressRanges.refusal(InetAddress.getByName("[fd00:ec2::254]"), true).isPresent());
    }

    @Test
    void publicAddressesAreAllowed() throws UnknownHostException {
        assertTrue(AddressRanges.refusal(InetAddress.getByName("8.8.8.8"), false).isEmpty());
        assertTrue(AddressRanges.refusal(InetAddress.getByName("[2606:4700::1111]"), false).isEmpty());
    }

    @Test
    void ipv4MappedAddressKeptInIpv6FormIsJudgedByItsIpv4Address() throws UnknownHostException {
        byte[] mapped = AddressRanges.parseLiteral("::ffff:127.0.0.1");
        InetAddress asIpv6 = Inet6Address.getByAddress(null, mapped, -1);

        assertEquals(16, asIpv6.getAddress().length);
        assertEquals("127.0.0.0/8", AddressRanges.refusal(asIpv6, false).orElseThrow().cidr());
    }
}
