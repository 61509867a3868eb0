package io.psmr.ordering.pbft.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.EnvelopeCodec;
import io.psmr.ordering.pbft.HmacAuthenticator;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftEnvelope;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PbftMessage;
import io.psmr.ordering.transport.ReconnectPolicy;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@link PbftNettyTransport} on real loopback sockets, without PBFT cores: hello and frame refusals by reason, drops
 * by reason, the private per-pillar connections, and reconnection after a peer's transport restarts on its ports.
 */
class PbftNettyTransportTest {

    static final PbftConfig PBFT = new PbftConfig(1, 2, 16, 128, 2_000, 16_000, 2, 20, LeaderRotation.ROTATING,
            1 << 16, 10_000);
    static final PbftTransportConfig CONFIG = PbftTransportConfig.defaults().withMaxFrameBytes(64 * 1024)
            .withReconnect(new ReconnectPolicy(Duration.ofMillis(10), Duration.ofMillis(100)));
    static final Authenticator AUTH = new HmacAuthenticator(PbftKeys.forTesting(7, 4, 4));
    static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

    /** Address book filled as transports start; unknown replicas stay null (never connected to). */
    static final class Book implements PeerAddresses {
        final Map<String, InetSocketAddress> addresses = new ConcurrentHashMap<>();

        @Override
        public InetSocketAddress of(int replica, int pillar) {
            return addresses.get(replica + "/" + pillar);
        }

        PbftNettyTransport start(int replica, List<InetSocketAddress> bind, PbftTransportConfig config) {
            PbftNettyTransport t = PbftNettyTransport.start(replica, PBFT, bind, this, config);
            for (int p = 0; p < PBFT.pillars(); p++) {
                addresses.put(replica + "/" + p, t.localAddress(p));
            }
            return t;
        }

        PbftNettyTransport start(int replica) {
            return start(replica, List.of(ANY, ANY), CONFIG);
        }
    }

    static PbftEnvelope envelope(int from, int to, int pillar, long seq) {
        return PbftEnvelope.seal(from, to, pillar, PbftMessage.Checkpoint.signed(seq, new byte[32], from, AUTH), AUTH);
    }

    @Test
    void eachPillarHasItsOwnConnectionAndFramesArriveAtThatPillarsInbox() {
        Book book = new Book();
        try (PbftNettyTransport a = book.start(0); PbftNettyTransport b = book.start(1)) {
            Await.until("both pillars connected both ways", 10_000, () -> a.stats().outbound().equals(List.of(1, 1))
                    && b.stats().inbound().equals(List.of(1, 1)) && b.stats().outbound().equals(List.of(1, 1))
                    && a.stats().inbound().equals(List.of(1, 1)), () -> a.stats() + " " + b.stats());
            // The test thread plays each pillar's agent in turn (one writer per pillar at a time).
            for (long seq = 1; seq <= 20; seq++) {
                assertTrue(a.send(envelope(0, 1, (int) (seq % 2), seq)));
            }
            for (int p = 0; p < 2; p++) {
                int pillar = p;
                Await.until("10 frames at pillar " + p, 10_000, () -> b.frames(1, pillar).size() == 10,
                        () -> b.frames(1, pillar).size());
                long expected = p == 0 ? 2 : 1;
                byte[] frame;
                while ((frame = b.frames(1, p).poll()) != null) {
                    PbftEnvelope e = EnvelopeCodec.decode(frame);
                    assertEquals(List.of(0, 1, p), List.of(e.from(), e.to(), e.pillar()));
                    assertEquals(expected, ((PbftMessage.Checkpoint) e.message()).seq(), "order within a pillar");
                    assertTrue(e.verify(AUTH), "the MAC travels unchanged");
                    expected += 2;
                }
            }
            assertEquals(0, a.stats().totalDrops() + b.stats().totalDrops() + a.stats().totalRefusals()
                    + b.stats().totalRefusals(), a.stats() + " " + b.stats());
        }
    }

    @Test
    void badHellosAndFramesCloseOnlyTheirConnectionAndAreCountedByReason() throws Exception {
        Book book = new Book();
        try (PbftNettyTransport a = book.start(0); PbftNettyTransport b = book.start(1)) {
            Await.until("replica 1 connected to both pillars of replica 0", 10_000,
                    () -> a.stats().inbound().equals(List.of(1, 1)), a::stats);
            InetSocketAddress port0 = a.localAddress(0);
            try (RawPeer garbage = new RawPeer(port0)) {
                assertTrue(garbage.frame("GET / HTTP/1.1\r\n\r\n".getBytes()).closedByServer());
            }
            try (RawPeer unknown = new RawPeer(port0)) {
                assertTrue(unknown.frame(new PillarHello(7, 0, 0).encode()).closedByServer());
            }
            try (RawPeer self = new RawPeer(port0)) {
                assertTrue(self.frame(new PillarHello(0, 0, 0).encode()).closedByServer());
            }
            try (RawPeer outOfRange = new RawPeer(port0)) {
                assertTrue(outOfRange.frame(new PillarHello(2, 0, 2).encode()).closedByServer());
            }
            try (RawPeer otherPillar = new RawPeer(port0)) {
                assertTrue(otherPillar.frame(new PillarHello(2, 0, 1).encode()).closedByServer());
            }
            try (RawPeer duplicate = new RawPeer(port0)) {
                assertTrue(duplicate.frame(new PillarHello(1, 0, 0).encode()).closedByServer());
            }
            try (RawPeer misaddressed = new RawPeer(port0)) {
                assertTrue(misaddressed.frame(new PillarHello(2, 3, 0).encode()).closedByServer());
            }
            try (RawPeer oversized = new RawPeer(port0)) {
                assertTrue(oversized.prefix(CONFIG.maxFrameBytes() + 1).closedByServer());
            }
            try (RawPeer forged = new RawPeer(port0)) {
                byte[] asReplica3 = EnvelopeCodec.encode(envelope(3, 0, 0, 16));
                assertTrue(forged.frame(new PillarHello(2, 0, 0).encode()).frame(asReplica3).closedByServer());
            }
            try (RawPeer wrongPillar = new RawPeer(port0)) {
                byte[] forPillar1 = EnvelopeCodec.encode(envelope(2, 0, 1, 16));
                assertTrue(wrongPillar.frame(new PillarHello(2, 0, 0).encode()).frame(forPillar1).closedByServer());
            }
            try (RawPeer truncated = new RawPeer(port0)) {
                assertTrue(truncated.frame(new PillarHello(2, 0, 0).encode()).frame(new byte[5]).closedByServer());
            }
            try (RawPeer oversizedAfterHello = new RawPeer(port0)) {
                assertTrue(oversizedAfterHello.frame(new PillarHello(2, 0, 0).encode())
                        .prefix(Integer.MAX_VALUE).closedByServer());
            }
            Map<RefusalReason, Long> refused = a.stats().refusals();
            assertEquals(Map.of(RefusalReason.MALFORMED_HELLO, 2L, RefusalReason.UNKNOWN_REPLICA, 2L,
                    RefusalReason.PILLAR_OUT_OF_RANGE, 2L, RefusalReason.DUPLICATE_CONNECTION, 1L,
                    RefusalReason.MALFORMED_FRAME, 1L, RefusalReason.OVERSIZED_FRAME, 2L,
                    RefusalReason.FORGED_ENVELOPE, 2L, RefusalReason.CONNECTION_LIMIT, 0L, RefusalReason.IMPOSTOR, 0L), refused);
            // Replica 1's own connections were never touched (the refused ones are forgotten as their close completes),
            // and still carry frames.
            Await.until("only replica 1 connected", 10_000, () -> a.stats().inbound().equals(List.of(1, 1)), a::stats);
            assertTrue(b.send(envelope(1, 0, 0, 32)));
            Await.until("a frame from replica 1", 10_000, () -> a.frames(0, 0).size() == 1, a::stats);
            assertEquals(1, EnvelopeCodec.decode(a.frames(0, 0).poll()).from());
            // A good hello from a known replica is still accepted after all that.
            try (RawPeer good = new RawPeer(port0)) {
                good.frame(new PillarHello(2, 0, 0).encode()).frame(EnvelopeCodec.encode(envelope(2, 0, 0, 48)));
                Await.until("replica 2's frame", 10_000, () -> a.frames(0, 0).size() == 1, a::stats);
                assertEquals(2, EnvelopeCodec.decode(a.frames(0, 0).poll()).from());
                assertEquals(List.of(2, 1), a.stats().inbound());
            }
        }
    }

    @Test
    void connectionsBeyondTheLimitAreRefused() throws Exception {
        Book book = new Book();
        PbftTransportConfig one = new PbftTransportConfig(CONFIG.maxFrameBytes(), 16, 16, 16, 1,
                CONFIG.writeHighWaterBytes(), CONFIG.connectTimeout(), CONFIG.reconnect(), CONFIG.security());
        try (PbftNettyTransport a = book.start(0, List.of(ANY, ANY), one); RawPeer first = new RawPeer(a.localAddress(0));
             RawPeer second = new RawPeer(a.localAddress(0))) {
            first.frame(new PillarHello(1, 0, 0).encode());
            Await.until("the first connection identified", 10_000, () -> a.stats().inbound().get(0) == 1, a::stats);
            assertTrue(second.closedByServer());
            assertEquals(1L, a.stats().refusals().get(RefusalReason.CONNECTION_LIMIT));
        }
    }

    @Test
    void fullQueuesDropAndCountInsteadOfBlocking() throws Exception {
        Book book = new Book();
        PbftTransportConfig small = new PbftTransportConfig(256, 4, 2, 16, 8, CONFIG.writeHighWaterBytes(),
                CONFIG.connectTimeout(), CONFIG.reconnect(), CONFIG.security());
        try (PbftNettyTransport a = book.start(0, List.of(ANY, ANY), small)) {
            // Replica 1's address is unknown: its send queue fills and then drops, without blocking the sender.
            for (long seq = 1; seq <= 10; seq++) {
                a.send(envelope(0, 1, 0, seq));
            }
            assertFalse(a.send(envelope(0, 1, 0, 11)));
            assertFalse(a.send(envelope(0, 0, 0, 1)), "to itself");
            assertFalse(a.send(envelope(1, 2, 0, 1)), "as another replica");
            PbftEnvelope big = PbftEnvelope.seal(0, 2, 0, PbftMessage.Request.sign(0, 1, new byte[300], AUTH, 4), AUTH);
            assertFalse(a.send(big), "larger than the frame limit");
            // The inbox holds 2 frames; nobody consumes them here.
            try (RawPeer peer = new RawPeer(a.localAddress(1))) {
                peer.frame(new PillarHello(3, 0, 1).encode());
                for (long seq = 1; seq <= 5; seq++) {
                    peer.frame(EnvelopeCodec.encode(envelope(3, 0, 1, seq)));
                }
                Await.until("3 frames dropped at the full inbox", 10_000,
                        () -> a.stats().drops().get(DropReason.INBOX_FULL) == 3, a::stats);
            }
            assertEquals(Map.of(DropReason.SEND_QUEUE_FULL, 7L, DropReason.INBOX_FULL, 3L, DropReason.FRAME_TOO_LARGE, 1L,
                    DropReason.UNROUTABLE, 2L, DropReason.CLOSED, 0L), a.stats().drops());
            assertEquals(0, a.stats().totalRefusals());
            a.close();
            assertFalse(a.send(envelope(0, 1, 0, 12)));
            assertEquals(1L, a.stats().drops().get(DropReason.CLOSED));
        }
    }

    @Test
    void aRestartedTransportIsReconnectedOnItsPortsAndFramesQueuedMeanwhileArrive() {
        Book book = new Book();
        try (PbftNettyTransport a = book.start(0)) {
            PbftNettyTransport b = book.start(1);
            List<InetSocketAddress> ports = List.of(b.localAddress(0), b.localAddress(1));
            Await.until("connected", 10_000, () -> a.stats().outbound().equals(List.of(1, 1))
                    && a.stats().inbound().equals(List.of(1, 1)), a::stats);
            b.close();
            Await.until("replica 0 sees replica 1 gone", 10_000, () -> a.stats().outbound().equals(List.of(0, 0))
                    && a.stats().inbound().equals(List.of(0, 0)), a::stats);
            // Sent while replica 1 is down: kept in the send queue, not lost.
            assertTrue(a.send(envelope(0, 1, 1, 16)));
            try (PbftNettyTransport b2 = book.start(1, ports, CONFIG)) {
                Await.until("reconnected both ways on both pillars", 10_000,
                        () -> a.stats().outbound().equals(List.of(1, 1)) && a.stats().inbound().equals(List.of(1, 1))
                                && b2.stats().outbound().equals(List.of(1, 1)) && b2.stats().inbound().equals(List.of(1, 1)),
                        () -> a.stats() + " " + b2.stats());
                Await.until("the queued frame", 10_000, () -> b2.frames(1, 1).size() == 1, b2::stats);
                assertEquals(16, ((PbftMessage.Checkpoint) EnvelopeCodec.decode(b2.frames(1, 1).poll()).message()).seq());
                assertEquals(0, a.stats().totalRefusals() + b2.stats().totalRefusals(), a.stats() + " " + b2.stats());
            }
        }
    }

    @Test
    void badArgumentsAreRefusedWithClearMessages() {
        Book book = new Book();
        assertEquals("replica 4 is not one of 0..3", assertThrows(IllegalArgumentException.class,
                () -> book.start(4)).getMessage());
        assertEquals("replica 0: 1 bind addresses for 2 pillars (one port per pillar)",
                assertThrows(IllegalArgumentException.class, () -> book.start(0, List.of(ANY), CONFIG)).getMessage());
        try (PbftNettyTransport a = book.start(0)) {
            UncheckedIOException taken = assertThrows(UncheckedIOException.class,
                    () -> book.start(1, List.of(ANY, a.localAddress(1)), CONFIG));
            assertTrue(taken.getMessage().startsWith("cannot listen on " + a.localAddress(1)), taken.getMessage());
            assertEquals("this transport serves pillars 0..1 of replica 0, not pillar 0 of replica 1",
                    assertThrows(IllegalArgumentException.class, () -> a.frames(1, 0)).getMessage());
        }
    }
}
