package dev.postern.executor.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CheckingDnsResolverTest {

    private static InetAddress ip(int a, int b, int c, int d) throws UnknownHostException {
        return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
    }

    @Test
    void mixOfPublicAndPrivateAnswersIsRefusedWhole() throws UnknownHostException {
        InetAddress[] answers = {ip(8, 8, 8, 8), ip(10, 0, 0, 7)};
        CheckingDnsResolver resolver = new CheckingDnsResolver(host -> answers, false);

        AddressRefusedException e = assertThrows(AddressRefusedException.class, () -> resolver.resolve("mixed.test"));

        assertTrue(e.getMessage().contains("10.0.0.7"), e.getMessage());
        assertTrue(e.getMessage().contains("10.0.0.0/8"), e.getMessage());
    }

    @Test
    void mixIsAllowedWhenTheTargetAllowsPrivateAddresses() throws UnknownHostException {
        InetAddress[] answers = {ip(8, 8, 8, 8), ip(10, 0, 0, 7)};

        assertArrayEquals(answers, new CheckingDnsResolver(host -> answers, true).resolve("mixed.test"));
    }

    @Test
    void metadataAmongAllowedPrivateAnswersIsRefused() throws UnknownHostException {
        InetAddress[] answers = {ip(10, 0, 0, 7), ip(169, 254, 169, 254)};
        CheckingDnsResolver resolver = new CheckingDnsResolver(host -> answers, true);

        assertThrows(AddressRefusedException.class, () -> resolver.resolve("meta.test"));
    }

    @Test
    void publicAnswersAreHandedBackAsLookedUpAndTheLookupRunsOnce() throws UnknownHostException {
        InetAddress[] answers = {ip(8, 8, 8, 8), ip(1, 1, 1, 1)};
        AtomicInteger lookups = new AtomicInteger();
        CheckingDnsResolver resolver = new CheckingDnsResolver(host -> {
            lookups.incrementAndGet();
            return answers;
        }, false);

        List<InetSocketAddress> resolved = resolver.resolve("public.test", 443);

        assertEquals(1, lookups.get());
        assertEquals(List.of(new InetSocketAddress(answers[0], 443), new InetSocketAddress(answers[1], 443)), resolved);
        assertFalse(resolved.get(0).isUnresolved());
    }

    @Test
    void noAnswerIsAnUnknownHostNotARefusal() {
        CheckingDnsResolver resolver = new CheckingDnsResolver(host -> new InetAddress[0], false);

        UnknownHostException e = assertThrows(UnknownHostException.class, () -> resolver.resolve("empty.test"));

        assertFalse(e instanceof AddressRefusedException);
    }

    @Test
    void canonicalNameIsNeverLookedUp() {
        CheckingDnsResolver resolver = new CheckingDnsResolver(host -> {
            throw new AssertionError("looked up " + host);
        }, false);

        assertEquals("example.test", resolver.resolveCanonicalHostname("example.test"));
    }
}
