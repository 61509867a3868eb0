package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.agent.AgentFailedException;
import io.psmr.ordering.agent.BoundedQueue;

import io.psmr.ordering.pbft.PbftMessage.Request;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Four replicas of two pillars each, on real agent threads, talking through the loopback network with HMAC-sealed
 * frames, around the test-only {@link SequencerPillar}: tests the COP plumbing (agents, queues, execution stage,
 * empties, shared checkpoints), not PBFT.
 */
class PbftReplicaNodeTest {

    private static final long SEED = Long.getLong("psmr.seed", 20261123L);
    /** K=8, L=128: 400 instances need the shared checkpoints to move the watermarks several times. */
    static final PbftConfig CONFIG = new PbftConfig(1, 2, 8, 128, 200, 6400, 5, 50, LeaderRotation.FIXED, 1 << 20, 10_000);

    /** What one replica delivered, in order. Guarded by itself. */
    static final class Recorder implements DeliverySink {
        final List<RequestId> ids = new ArrayList<>();
        final List<Long> instances = new ArrayList<>();

        @Override
        public synchronized boolean deliver(long instance, Request request) {
            ids.add(request.id());
            instances.add(instance);
            notifyAll();
            return true;
        }

        synchronized void awaitCount(int n, long timeoutMillis) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMillis;
            while (ids.size() < n) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    throw new AssertionError("delivered " + ids.size() + " of " + n + " within " + timeoutMillis + " ms");
                }
                wait(left);
            }
        }
    }

    private record Cluster(LoopbackNetwork network, List<PbftReplicaNode> nodes, List<Recorder> sinks,
                           List<List<SequencerPillar>> cores, Authenticator auth) implements AutoCloseable {
        @Override
        public void close() {
            nodes.forEach(PbftReplicaNode::close);
        }
    }

    private static Cluster cluster(int threads) {
        Authenticator auth = new HmacAuthenticator(PbftKeys.forTesting(SEED, CONFIG.replicaCount(), 4));
        LoopbackNetwork network = new LoopbackNetwork(CONFIG.replicaCount(), CONFIG.pillars(), 1 << 14, 4096);
        List<PbftReplicaNode> nodes = new ArrayList<>();
        List<Recorder> sinks = new ArrayList<>();
        List<List<SequencerPillar>> cores = new ArrayList<>();
        PbftReplicaNode.Settings settings = PbftReplicaNode.Settings.defaults().withThreads(threads);
        for (int r = 0; r < CONFIG.replicaCount(); r++) {
            List<SequencerPillar> mine = new ArrayList<>();
            for (int p = 0; p < CONFIG.pillars(); p++) {
                mine.add(new SequencerPillar(CONFIG, r, p, auth));
            }
            Recorder sink = new Recorder();
            nodes.add(new PbftReplicaNode(r, CONFIG, mine, network, sink, settings, System::nanoTime));
            sinks.add(sink);
            cores.add(mine);
        }
        nodes.forEach(PbftReplicaNode::start);
        return new Cluster(network, nodes, sinks, cores, auth);
    }

    private static void submitAll(Cluster c, int clients, int perClient, IntUnaryOperator pillarOfNumber) {
        for (int n = 1; n <= perClient; n++) {
            for (int client = 0; client < clients; client++) {
                Request r = Request.sign(client, n, ("op " + client + "/" + n).getBytes(StandardCharsets.UTF_8), c.auth(),
                        CONFIG.replicaCount());
                for (int replica = 0; replica < CONFIG.replicaCount(); replica++) {
                    assertTrue(c.network().submit(replica, pillarOfNumber.applyAsInt(n), r), "request inbox full");
                }
            }
        }
    }

    private static void assertSameGapFreeOrder(Cluster c, int total) throws InterruptedException {
        for (Recorder s : c.sinks()) {
            s.awaitCount(total, 20_000);
        }
        c.close(); // joins the agents: what they wrote is visible here
        List<RequestId> reference = c.sinks().get(0).ids;
        assertEquals(total, reference.size());
        assertEquals(total, new HashSet<>(reference).size(), "a request was delivered twice");
        for (int r = 0; r < c.sinks().size(); r++) {
            Recorder s = c.sinks().get(r);
            assertEquals(reference, s.ids, "replica " + r + " delivered another order");
            for (int i = 0; i < s.instances.size(); i++) {
                assertEquals(i + 1, s.instances.get(i), "replica " + r + ": instances must be 1, 2, 3, ...");
            }
            c.nodes().get(r).failure().ifPresent(f -> {
                throw new AssertionError("replica failed", f);
            });
        }
    }

    /** The loopback network, offering each pillar of the replica a single-threaded loop to run on, as TCP does. */
    private static final class LoopedNetwork implements PillarNetwork {
        final LoopbackNetwork inner;
        final List<ScheduledExecutorService> loops = new ArrayList<>();

        LoopedNetwork(LoopbackNetwork inner, int pillars) {
            this.inner = inner;
            for (int p = 0; p < pillars; p++) {
                loops.add(Executors.newSingleThreadScheduledExecutor());
            }
        }

        @Override
        public boolean send(PbftEnvelope envelope) {
            return inner.send(envelope);
        }

        @Override
        public BoundedQueue<byte[]> frames(int replica, int pillar) {
            return inner.frames(replica, pillar);
        }

        @Override
        public BoundedQueue<byte[]> requests(int replica, int pillar) {
            return inner.requests(replica, pillar);
        }

        @Override
        public void refused(int replica, int pillar, Request request, Refusal reason) {
            inner.refused(replica, pillar, request, reason);
        }

        @Override
        public Optional<ScheduledExecutorService> eventLoop(int pillar) {
            return Optional.of(loops.get(pillar));
        }
    }

    @Test
    void pillarsThatFailTogetherOnTheirLoopsStopTheWholeReplica() throws Exception {
        Authenticator auth = new HmacAuthenticator(PbftKeys.forTesting(SEED, CONFIG.replicaCount(), 4));
        LoopedNetwork network = new LoopedNetwork(new LoopbackNetwork(CONFIG.replicaCount(), CONFIG.pillars(), 64, 64),
                CONFIG.pillars());
        List<SequencerPillar> cores = new ArrayList<>();
        for (int p = 0; p < CONFIG.pillars(); p++) {
            cores.add(new SequencerPillar(CONFIG, 0, p, auth));
        }
        Recorder sink = new Recorder();
        PbftReplicaNode node = new PbftReplicaNode(0, CONFIG, cores, network, sink,
                PbftReplicaNode.Settings.defaults(), System::nanoTime);
        try {
            node.start();
            // Signed under other keys: each pillar's core throws on it, both at about the same time.
            Authenticator stranger = new HmacAuthenticator(PbftKeys.forTesting(SEED + 1, CONFIG.replicaCount(), 4));
            for (int p = 0; p < CONFIG.pillars(); p++) {
                Request bad = Request.sign(7, p + 1, "x".getBytes(StandardCharsets.UTF_8), stranger, CONFIG.replicaCount());
                assertTrue(network.inner.submit(0, p, bad));
            }
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> node.termination().get(10, TimeUnit.SECONDS), "the replica did not stop");
            AgentFailedException failed = assertInstanceOf(AgentFailedException.class, e.getCause());
            assertTrue(failed.getMessage().contains("/pillar-"), failed.getMessage());
            assertTrue(failed.getCause().getMessage().contains("does not verify"), failed.getCause().getMessage());
            assertTrue(node.failure().isPresent());
            assertTrue(sink.ids.isEmpty());
        } finally {
            node.close();
            network.loops.forEach(ScheduledExecutorService::shutdownNow);
        }
    }

    @Test
    void fourReplicasOfTwoPillarsDeliverTheSameGapFreeOrderWithCheckpoints() throws Exception {
        try (Cluster c = cluster(2)) {
            submitAll(c, 4, 100, n -> n % CONFIG.pillars());
            assertSameGapFreeOrder(c, 400);
            // 400 instances over a window of 32: the pillars only got this far because checkpoints became stable
            // and were shared with every pillar.
            for (List<SequencerPillar> replica : c.cores()) {
                for (SequencerPillar p : replica) {
                    assertTrue(p.stable() >= 400 - CONFIG.watermarkWindow(), "pillar " + p.pillar() + " stable at "
                            + p.stable());
                    assertTrue(p.ticks() > 0, "the pillar was never ticked");
                }
            }
        }
    }

    @Test
    void anIdlePillarFillsTheGapsWithEmptyInstancesThatAreNotDelivered() throws Exception {
        try (Cluster c = cluster(1)) {
            submitAll(c, 2, 60, n -> 1); // nothing ever reaches pillar 0
            assertSameGapFreeOrder(c, 120);
        }
    }

    @Test
    void aRequestSubmittedTwiceIsDeliveredOnce() throws Exception {
        try (Cluster c = cluster(3)) {
            submitAll(c, 1, 20, n -> n % 2);
            submitAll(c, 1, 20, n -> (n + 1) % 2); // the same requests again, each to the other pillar
            submitAll(c, 1, 21, n -> 0); // the same again, and one more to make sure the duplicates were released
            c.sinks().get(0).awaitCount(21, 20_000);
            assertSameGapFreeOrder(c, 21);
            for (Recorder s : c.sinks()) {
                assertEquals(21, s.ids.size());
            }
        }
    }
}
