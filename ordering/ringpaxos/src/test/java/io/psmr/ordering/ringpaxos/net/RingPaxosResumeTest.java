package io.psmr.ordering.ringpaxos.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.DeliveryListener;
import io.psmr.ordering.Subscription;
import io.psmr.ordering.ringpaxos.AcceptorNode;
import io.psmr.ordering.ringpaxos.AcceptorStorage;
import io.psmr.ordering.ringpaxos.LearnerCheckpoint;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link RingPaxosBroadcast} closed and resumed from its learner checkpoint, over loopback sockets: 3 acceptors,
 * learner A with the proposer, learner B checkpointing.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingPaxosResumeTest {

    private static final int A = 10;
    private static final int B = 11;
    private static final int PROPOSER = 20;
    private static final RingPaxosTransportConfig TRANSPORT = RingPaxosTransportConfig.defaults().withTickInterval(Duration.ofMillis(5));
    private static final long WAIT_S = 20;

    private final Map<Integer, InetSocketAddress> peers = new ConcurrentHashMap<>();
    private final Map<Integer, RingPaxosNode> acceptors = new TreeMap<>();
    private final List<RingPaxosBroadcast> broadcasts = new ArrayList<>();

    /** Records (instance, value) pairs and checks they are gap-free from the first one subscribed. */
    static final class Recorder implements DeliveryListener {
        final long first;
        final List<String> values = new ArrayList<>();
        volatile String error;

        Recorder(long first) {
            this.first = first;
        }

        @Override
        public synchronized void deliver(long instance, byte[] value) {
            if (instance != first + values.size()) {
                error = "instance " + instance + " after " + values.size() + " values from " + first;
            }
            values.add(new String(value, StandardCharsets.UTF_8));
        }

        synchronized List<String> from(long instance) {
            return List.copyOf(values.subList((int) (instance - first), values.size()));
        }
    }

    private void startAcceptors(RingPaxosConfig config) {
        for (int id : config.acceptors()) {
            RingPaxosNode node = RingPaxosNode.start(new AcceptorNode(config, id, new AcceptorStorage(config.logCapacity())),
                    config, TRANSPORT, new InetSocketAddress("127.0.0.1", 0), peers, new RingPaxosNode.Listener() { });
            acceptors.put(id, node);
            peers.put(id, node.localAddress());
        }
    }

    private RingPaxosBroadcast started(RingPaxosBroadcast b, int learner) {
        broadcasts.add(b);
        peers.put(learner, b.learnerAddress());
        if (b.proposerAddress() != null) {
            peers.put(PROPOSER, b.proposerAddress());
        }
        return b;
    }

    @AfterEach
    void stop() {
        broadcasts.forEach(RingPaxosBroadcast::close);
        acceptors.values().forEach(RingPaxosNode::close);
    }

    private static void propose(RingPaxosBroadcast b, String prefix, int count) throws Exception {
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(b.propose((prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(WAIT_S, TimeUnit.SECONDS);
    }

    @Test
    void aResumedLearnerDeliversWhatTheOthersDeliveredFromItsCheckpointOn() throws Exception {
        RingPaxosConfig config = RingPaxosConfig.of(List.of(0, 1, 2), List.of(A, B), List.of(PROPOSER))
                .withLearnerSilenceTicks(4_000); // 20 s: B is never left out in this test
        startAcceptors(config);
        RingPaxosBroadcast a = started(RingPaxosBroadcast.builder(config, A, TRANSPORT, peers).proposer(PROPOSER).build(), A);
        RingPaxosBroadcast b = started(RingPaxosBroadcast.builder(config, B, TRANSPORT, peers).checkpointEvery(50).build(), B);
        Recorder recA = new Recorder(1);
        Subscription subA = a.subscribe(1, recA);
        Recorder recB = new Recorder(1);
        Subscription subB = b.subscribe(1, recB);
        a.start();
        b.start();
        propose(a, "v", 300);
        assertTrue(subB.awaitDelivered(300, WAIT_S, TimeUnit.SECONDS), "B reached " + subB.nextInstance());
        for (long n = 50; n <= 300; n += 50) {
            assertEquals(n >= 150, b.learnerCheckpointAt(n).isPresent(), "the last 4 are kept: " + n);
        }
        LearnerCheckpoint state = b.learnerCheckpointAt(250).orElseThrow();
        assertTrue(state.deliveredThrough() >= 250, "Paxos instance " + state.deliveredThrough());
        b.reportCheckpoint(250);
        assertEquals("no learner checkpoint kept at instance 251 (kept: [150, 200, 250, 300])",
                assertThrows(IllegalArgumentException.class, () -> b.reportCheckpoint(251)).getMessage());
        assertEquals("this broadcast does not checkpoint: build it with checkpointEvery(k)",
                assertThrows(IllegalStateException.class, () -> a.reportCheckpoint(250)).getMessage());
        b.close();

        propose(a, "w", 200); // while B is down
        RingPaxosBroadcast resumed = started(RingPaxosBroadcast.builder(config, B, TRANSPORT, peers).checkpointEvery(50)
                .resumeFrom(LearnerCheckpoint.fromBytes(state.toBytes()), 250).build(), B);
        Recorder recR = new Recorder(251);
        Subscription subR = resumed.subscribe(251, recR);
        resumed.start();
        propose(a, "x", 100);
        assertTrue(subA.awaitDelivered(600, WAIT_S, TimeUnit.SECONDS), "A reached " + subA.nextInstance());
        assertTrue(subR.awaitDelivered(600, WAIT_S, TimeUnit.SECONDS), "resumed B reached " + subR.nextInstance());
        assertNull(recA.error);
        assertNull(recB.error);
        assertNull(recR.error);
        assertEquals(recA.from(251), recR.from(251), "the same values at the same renumbered instances");
        assertEquals(350, recR.from(251).size());
        assertEquals(600, resumed.lastInstance());
        assertFalse(resumed.trimmedPast().isDone());
        assertTrue(resumed.learnerCheckpointAt(600).isPresent(), "it checkpoints on from where it resumed");
    }

    @Test
    void aLearnerResumedPastTheTrimPointIsToldSo() throws Exception {
        // A small log and a short learner silence (100 ms): with B gone, the acceptors soon trim past its checkpoint.
        RingPaxosConfig config = RingPaxosConfig.of(List.of(0, 1, 2), List.of(A, B), List.of(PROPOSER))
                .withWindow(16, 64).withLearnerSilenceTicks(20);
        startAcceptors(config);
        RingPaxosBroadcast a = started(RingPaxosBroadcast.builder(config, A, TRANSPORT, peers).proposer(PROPOSER).build(), A);
        RingPaxosBroadcast b = started(RingPaxosBroadcast.builder(config, B, TRANSPORT, peers).checkpointEvery(10).build(), B);
        Subscription subB = b.subscribe(1, new Recorder(1));
        a.subscribe(1, new Recorder(1));
        a.start();
        b.start();
        propose(a, "v", 30);
        assertTrue(subB.awaitDelivered(30, WAIT_S, TimeUnit.SECONDS));
        LearnerCheckpoint state = b.learnerCheckpointAt(20).orElseThrow();
        b.reportCheckpoint(20);
        b.close();
        propose(a, "w", 300); // far more than the log holds: only possible once B is left out of the trim point

        RingPaxosBroadcast resumed = started(RingPaxosBroadcast.builder(config, B, TRANSPORT, peers).checkpointEvery(10)
                .resumeFrom(state, 20).build(), B);
        resumed.start();
        long trimPoint = resumed.trimmedPast().get(WAIT_S, TimeUnit.SECONDS);
        assertTrue(trimPoint > state.deliveredThrough(), "trimmed to " + trimPoint + ", resumed after " + state.deliveredThrough());
        assertEquals(20, resumed.lastInstance(), "it delivered nothing");
    }
}
