package io.psmr.ordering.pbft.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.DeliverySink;
import io.psmr.ordering.pbft.EnvelopeCodec;
import io.psmr.ordering.pbft.HmacAuthenticator;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftEnvelope;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftPillar;
import io.psmr.ordering.pbft.PbftReplicaNode;
import io.psmr.ordering.pbft.PbftCore;
import io.psmr.ordering.pbft.RequestId;
import io.psmr.ordering.transport.ReconnectPolicy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Four {@link PbftReplicaNode}s of two real PBFT pillars each, in one JVM but talking over {@link PbftNettyTransport}s
 * on 127.0.0.1 (one port per pillar, ephemeral), with HMAC-sealed envelopes: they order requests into the same
 * sequence, shrug off bad peers (refused and counted by reason), and survive a replica's transport going away and
 * coming back on its ports.
 */
class PbftNettyClusterTest {

    private static final long SEED = Long.getLong("psmr.seed", 20261124L);
    /** A 1 ms tick and a 2 s request timeout: CPU starvation on a shared 2-core machine does not cause view changes. */
    private static final PbftReplicaNode.Settings SETTINGS = new PbftReplicaNode.Settings(2, 1_000_000L, 1024, 4096, 1024);
    private static final PbftTransportConfig TRANSPORT = PbftTransportConfig.defaults().withMaxFrameBytes(1 << 20)
            .withReconnect(new ReconnectPolicy(Duration.ofMillis(10), Duration.ofMillis(200)));
    private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

    private static PbftConfig config(LeaderRotation rotation) {
        return new PbftConfig(1, 2, 16, 128, 2_000, 16_000, 2, 20, rotation, 1 << 16, 10_000);
    }

    /** What one replica delivered, in order. Guarded by itself. */
    static final class Recorder implements DeliverySink {
        final List<RequestId> ids = new ArrayList<>();
        final List<Long> instances = new ArrayList<>();

        @Override
        public synchronized boolean deliver(long instance, Request request) {
            ids.add(request.id());
            instances.add(instance);
            return true;
        }

        synchronized int count() {
            return ids.size();
        }

        synchronized List<RequestId> ids() {
            return List.copyOf(ids);
        }

        synchronized List<Long> instances() {
            return List.copyOf(instances);
        }
    }

    /** One replica: its transport, its node and what it delivered. */
    record Replica(PbftNettyTransport transport, PbftReplicaNode node, Recorder sink) {
    }

    /** Four replicas over the network; replicas may be closed and transports restarted. */
    static final class Cluster implements AutoCloseable {
        final PbftConfig config;
        final Authenticator auth;
        final PbftNettyTransportTest.Book book = new PbftNettyTransportTest.Book();
        final List<Replica> replicas = new ArrayList<>();
        final List<PbftNettyTransport> extra = new ArrayList<>();

        Cluster(PbftConfig config) {
            this.config = config;
            this.auth = new HmacAuthenticator(PbftKeys.forTesting(SEED, config.replicaCount(),
                    config.replicaCount() * config.pillars()));
            for (int r = 0; r < config.replicaCount(); r++) {
                PbftNettyTransport t = PbftNettyTransport.start(r, config, List.of(ANY, ANY), book, TRANSPORT);
                for (int p = 0; p < config.pillars(); p++) {
                    book.addresses.put(r + "/" + p, t.localAddress(p));
                }
                List<PbftCore> cores = new ArrayList<>();
                for (int p = 0; p < config.pillars(); p++) {
                    cores.add(new PbftPillar(config, r, p, auth));
                }
                Recorder sink = new Recorder();
                replicas.add(new Replica(t, new PbftReplicaNode(r, config, cores, t, sink, SETTINGS, System::nanoTime), sink));
            }
            replicas.forEach(r -> r.node().start());
            // Order only once every pillar link is up: a replica that misses the first COMMITs while its links are
            // still connecting is left behind the first stable checkpoint, and a bare PbftReplicaNode has no state
            // transfer to come back from that (a slow start under a loaded build did this).
            List<Integer> all = java.util.Collections.nCopies(config.pillars(), config.replicaCount() - 1);
            for (Replica r : replicas) {
                PbftNettyTransport t = r.transport();
                Await.until("replica " + t.replica() + " connected to every other replica on every pillar", 10_000,
                        () -> t.stats().outbound().equals(all) && t.stats().inbound().equals(all), t::stats);
            }
        }

        /** Each of {@code proposers}, on each pillar, submits requests {@code from..to} of its own client. */
        void submit(List<Integer> proposers, int from, int to) {
            for (int number = from; number <= to; number++) {
                for (int r : proposers) {
                    for (int p = 0; p < config.pillars(); p++) {
                        Request request = Request.sign(r * config.pillars() + p, number,
                                ("op " + r + "/" + p + "/" + number).getBytes(StandardCharsets.UTF_8), auth,
                                config.replicaCount());
                        assertTrue(replicas.get(r).transport().submit(p, request), "request inbox full");
                    }
                }
            }
        }

        void awaitDelivered(List<Integer> which, int count) {
            for (int r : which) {
                Recorder s = replicas.get(r).sink();
                Await.until("replica " + r + " delivers " + count + " requests (seed " + SEED + ")", 30_000,
                        () -> s.count() >= count || replicas.get(r).node().failure().isPresent(),
                        () -> s.count() + " delivered; " + replicas.get(r).transport().stats());
                replicas.get(r).node().failure().ifPresent(f -> {
                    throw new AssertionError("replica " + r + " failed (seed " + SEED + ")", f);
                });
            }
        }

        /** Asserts that {@code which} delivered the same sequence of {@code count} distinct requests; returns its digest. */
        String assertSameSequence(List<Integer> which, int count) throws Exception {
            awaitDelivered(which, count);
            List<RequestId> reference = replicas.get(which.get(0)).sink().ids();
            assertEquals(count, reference.size(), "seed " + SEED);
            assertEquals(count, new HashSet<>(reference).size(), "a request was delivered twice (seed " + SEED + ")");
            String digest = digest(reference);
            for (int r : which) {
                Recorder s = replicas.get(r).sink();
                assertEquals(digest, digest(s.ids()), "replica " + r + " delivered another sequence (seed " + SEED + ")");
                assertEquals(reference, s.ids(), "replica " + r + " (seed " + SEED + ")");
                assertEquals(LongStreamOf.oneTo(count), s.instances(), "replica " + r + ": instances 1, 2, 3, ...");
            }
            return digest;
        }

        @Override
        public void close() {
            for (Replica r : replicas) {
                r.node().close();
                r.transport().close();
            }
            extra.forEach(PbftNettyTransport::close);
        }
    }

    static String digest(List<RequestId> ids) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (RequestId id : ids) {
            sha.update((id.toString() + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The list 1, 2, ..., n. */
    static final class LongStreamOf {
        static List<Long> oneTo(int n) {
            return IntStream.rangeClosed(1, n).mapToObj(i -> (long) i).toList();
        }
    }

    @Test
    void fourReplicasOfTwoPillarsOrderOverSocketsAndRefuseBadPeersWhileOrdering() throws Exception {
        List<Integer> all = List.of(0, 1, 2, 3);
        try (Cluster c = new Cluster(config(LeaderRotation.ROTATING))) {
            c.submit(all, 1, 15);
            // Bad peers at replica 0 while the cluster orders.
            PbftNettyTransport target = c.replicas.get(0).transport();
            try (RawPeer garbage = new RawPeer(target.localAddress(0));
                 RawPeer unknown = new RawPeer(target.localAddress(1));
                 RawPeer pillarOutOfRange = new RawPeer(target.localAddress(0));
                 RawPeer oversized = new RawPeer(target.localAddress(1))) {
                assertTrue(garbage.frame(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}).closedByServer());
                assertTrue(unknown.frame(new PillarHello(9, 0, 1).encode()).closedByServer());
                assertTrue(pillarOutOfRange.frame(new PillarHello(1, 0, 2).encode()).closedByServer());
                assertTrue(oversized.prefix(TRANSPORT.maxFrameBytes() + 1).closedByServer());
            }
            c.submit(all, 16, 25);
            String digest = c.assertSameSequence(all, 4 * 2 * 25);
            assertEquals(64, digest.length());
            assertEquals(Map.of(RefusalReason.MALFORMED_HELLO, 1L, RefusalReason.UNKNOWN_REPLICA, 1L,
                    RefusalReason.PILLAR_OUT_OF_RANGE, 1L, RefusalReason.DUPLICATE_CONNECTION, 0L,
                    RefusalReason.MALFORMED_FRAME, 0L, RefusalReason.OVERSIZED_FRAME, 1L,
                    RefusalReason.FORGED_ENVELOPE, 0L, RefusalReason.CONNECTION_LIMIT, 0L, RefusalReason.IMPOSTOR, 0L),
                    target.stats().refusals());
            for (Replica r : c.replicas) {
                PbftTransportStats s = r.transport().stats();
                assertEquals(List.of(3, 3), s.outbound(), "replica " + r.transport().replica() + ": " + s);
                assertEquals(List.of(3, 3), s.inbound(), "replica " + r.transport().replica() + ": " + s);
                if (r.transport() != target) {
                    assertEquals(0, s.totalRefusals(), s.toString());
                }
            }
        }
    }

    @Test
    void aReplicasTransportThatGoesAwayAndComesBackOnItsPortsIsReconnectedWhileTheOthersKeepOrdering() throws Exception {
        List<Integer> survivors = List.of(0, 1, 2);
        try (Cluster c = new Cluster(config(LeaderRotation.FIXED))) {
            c.submit(List.of(0, 1, 2, 3), 1, 10);
            c.assertSameSequence(List.of(0, 1, 2, 3), 4 * 2 * 10);
            Replica three = c.replicas.get(3);
            List<InetSocketAddress> ports = List.of(three.transport().localAddress(0), three.transport().localAddress(1));
            three.node().close();
            three.transport().close();
            for (int r : survivors) {
                PbftNettyTransport t = c.replicas.get(r).transport();
                Await.until("replica " + r + " sees replica 3 gone", 10_000,
                        () -> t.stats().outbound().equals(List.of(2, 2)) && t.stats().inbound().equals(List.of(2, 2)),
                        t::stats);
            }
            // f = 1: three replicas order on.
            c.submit(survivors, 11, 20);
            c.assertSameSequence(survivors, 4 * 2 * 10 + 3 * 2 * 10);

            PbftNettyTransport back = PbftNettyTransport.start(3, c.config, ports, c.book, TRANSPORT);
            c.extra.add(back);
            for (int r : survivors) {
                PbftNettyTransport t = c.replicas.get(r).transport();
                Await.until("replica " + r + " reconnected to replica 3", 10_000,
                        () -> t.stats().outbound().equals(List.of(3, 3)) && t.stats().inbound().equals(List.of(3, 3)),
                        t::stats);
            }
            Await.until("replica 3 reconnected to the others", 10_000,
                    () -> back.stats().outbound().equals(List.of(3, 3)) && back.stats().inbound().equals(List.of(3, 3)),
                    back::stats);
            // The others' protocol traffic reaches the restarted transport on each pillar (no node consumes it here).
            c.submit(survivors, 21, 25);
            c.assertSameSequence(survivors, 4 * 2 * 10 + 3 * 2 * 15);
            for (int p = 0; p < 2; p++) {
                int pillar = p;
                Await.until("frames for pillar " + p + " of replica 3", 10_000, () -> back.frames(3, pillar).size() > 0,
                        back::stats);
                PbftEnvelope e = EnvelopeCodec.decode(back.frames(3, p).poll());
                assertEquals(List.of(3, p), List.of(e.to(), e.pillar()));
                assertTrue(survivors.contains(e.from()), "from " + e.from());
                assertTrue(e.verify(c.auth), "the MAC verifies");
            }
            for (Replica r : c.replicas) {
                assertEquals(0, r.transport().stats().totalRefusals(), r.transport().stats().toString());
            }
            assertEquals(0, back.stats().totalRefusals(), back.stats().toString());
        }
    }
}
