package io.psmr.ordering.ringpaxos.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.DeliveryListener;
import io.psmr.ordering.Subscription;
import io.psmr.ordering.ringpaxos.AcceptorNode;
import io.psmr.ordering.ringpaxos.AcceptorStorage;
import io.psmr.ordering.ringpaxos.Ballot;
import io.psmr.ordering.ringpaxos.Message;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import io.psmr.ordering.ringpaxos.wire.MessageCodec;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Ring Paxos over real loopback sockets in one JVM: 3 acceptors, 2 learners (each behind a
 * {@link RingPaxosBroadcast}), 1 proposer in the first broadcast. Every wait is on a condition with a timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingPaxosNetworkTest {

    private static final List<Integer> ACCEPTORS = List.of(0, 1, 2);
    private static final int LEARNER_A = 10;
    private static final int LEARNER_B = 11;
    private static final int PROPOSER = 20;
    private static final RingPaxosConfig CONFIG = RingPaxosConfig.of(ACCEPTORS, List.of(LEARNER_A, LEARNER_B), List.of(PROPOSER));
    private static final RingPaxosTransportConfig TRANSPORT = RingPaxosTransportConfig.defaults().withTickInterval(Duration.ofMillis(5));
    private static final long WAIT_S = 20;

    private final Map<Integer, InetSocketAddress> peers = new ConcurrentHashMap<>();
    private final Map<Integer, RingPaxosNode> acceptors = new TreeMap<>();
    private RingPaxosBroadcast withProposer;
    private RingPaxosBroadcast learnerOnly;
    private Recorder recA;
    private Recorder recB;
    private Subscription subA;
    private Subscription subB;

    /** Records deliveries and checks they are gap-free from instance 1. */
    static final class Recorder implements DeliveryListener {
        final List<String> values = new ArrayList<>();
        volatile String error;

        @Override
        public synchronized void deliver(long instance, byte[] value) {
            if (instance != values.size() + 1) {
                error = "instance " + instance + " after " + values.size() + " values";
            }
            values.add(new String(value, StandardCharsets.UTF_8));
        }

        synchronized List<String> snapshot() {
            return List.copyOf(values);
        }
    }

    @BeforeEach
    void startCluster() {
        for (int id : ACCEPTORS) {
            RingPaxosNode node = RingPaxosNode.start(new AcceptorNode(CONFIG, id, new AcceptorStorage(CONFIG.logCapacity())),
                    CONFIG, TRANSPORT, new InetSocketAddress("127.0.0.1", 0), peers, new RingPaxosNode.Listener() { });
            acceptors.put(id, node);
            peers.put(id, node.localAddress());
        }
        withProposer = RingPaxosBroadcast.builder(CONFIG, LEARNER_A, TRANSPORT, peers).proposer(PROPOSER).build();
        learnerOnly = RingPaxosBroadcast.builder(CONFIG, LEARNER_B, TRANSPORT, peers).build();
        peers.put(LEARNER_A, withProposer.learnerAddress());
        peers.put(PROPOSER, withProposer.proposerAddress());
        peers.put(LEARNER_B, learnerOnly.learnerAddress());
        recA = new Recorder();
        recB = new Recorder();
        subA = withProposer.subscribe(AtomicBroadcast.FIRST_INSTANCE, recA);
        subB = learnerOnly.subscribe(AtomicBroadcast.FIRST_INSTANCE, recB);
        withProposer.start();
        learnerOnly.start();
    }

    @AfterEach
    void stopCluster() {
        if (withProposer != null) {
            withProposer.close();
        }
        if (learnerOnly != null) {
            learnerOnly.close();
        }
        acceptors.values().forEach(RingPaxosNode::close);
    }

    /** Proposes {@code count} values named {@code prefix-i}, waits until both learners delivered them, checks the runs. */
    private void proposeAndCheck(String prefix, int count, int alreadyDelivered) throws Exception {
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(withProposer.propose((prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(WAIT_S, TimeUnit.SECONDS);
        long last = alreadyDelivered + count;
        assertTrue(subA.awaitDelivered(last, WAIT_S, TimeUnit.SECONDS), "learner A reached " + subA.nextInstance());
        assertTrue(subB.awaitDelivered(last, WAIT_S, TimeUnit.SECONDS), "learner B reached " + subB.nextInstance());
        List<String> a = recA.snapshot();
        List<String> b = recB.snapshot();
        assertNull(recA.error);
        assertNull(recB.error);
        assertEquals(a, b, "both learners deliver the same sequence");
        assertEquals(last, a.size());
        assertEquals(last, withProposer.lastInstance());
        assertEquals(last, learnerOnly.lastInstance());
        Set<String> distinct = new HashSet<>(a);
        assertEquals(a.size(), distinct.size(), "no value delivered twice");
        for (int i = 0; i < count; i++) {
            String v = prefix + "-" + i;
            long instance = futures.get(i).get();
            assertEquals(v, a.get((int) instance - 1), "the future's instance is where the value was delivered");
        }
    }

    @Test
    void threeAcceptorsTwoLearnersDeliverTheSameThousandProposals() throws Exception {
        proposeAndCheck("v", 1000, 0);
    }

    @Test
    void badConnectionsAreClosedAndTheClusterKeepsWorking() throws Exception {
        proposeAndCheck("before", 20, 0);
        InetSocketAddress coordinator = peers.get(0);
        MessageCodec codec = new MessageCodec(TRANSPORT.maxFrameBytes(), TRANSPORT.maxValueBytes(), TRANSPORT.maxListLength());

        // Garbage instead of a hello.
        assertClosedAfter(coordinator, frame(new byte[] {7, 7, 7, 7, 7}));
        // A well-formed hello from a node id nobody configured.
        assertClosedAfter(coordinator, frame(codec.encodeHello(999, 0)));
        // A length prefix beyond the maximum frame: refused before the body arrives.
        assertClosedAfter(coordinator, new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
        // A valid hello, then a malformed message.
        assertClosedAfter(coordinator, concat(frame(codec.encodeHello(LEARNER_B, 0)), frame(new byte[] {MessageCodec.VERSION, 42})));
        // A valid hello, then a well-formed message claiming another sender.
        assertClosedAfter(coordinator, concat(frame(codec.encodeHello(LEARNER_B, 0)),
                frame(codec.encode(new Message.Heartbeat(1, 0, Ballot.ZERO, 0, 0)))));
        assertTrue(acceptors.get(0).refusedConnections() >= 5, "refused " + acceptors.get(0).refusedConnections());

        proposeAndCheck("after", 50, 20);
    }

    @Test
    void killingTheCoordinatorElectsANewOneAndOrderingGoesOn() throws Exception {
        proposeAndCheck("before", 100, 0);
        assertTrue(isCoordinator(0), "acceptor 0, the lowest id, coordinates");
        acceptors.remove(0).close();
        proposeAndCheck("after", 100, 100);
        assertTrue(isCoordinator(1), "acceptor 1, the lowest live id, took over");
        assertFalse(isCoordinator(2));
    }

    private boolean isCoordinator(int acceptor) throws Exception {
        return acceptors.get(acceptor).call(core -> ((AcceptorNode) core).isCoordinator()).get(WAIT_S, TimeUnit.SECONDS);
    }

    private static byte[] frame(byte[] body) throws IOException {
        var out = new java.io.ByteArrayOutputStream();
        var data = new DataOutputStream(out);
        data.writeInt(body.length);
        data.write(body);
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** Connects, writes {@code bytes}, and expects the node to close the connection (EOF) within the wait. */
    private static void assertClosedAfter(InetSocketAddress address, byte[] bytes) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(address, 5_000);
            s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_S));
            s.getOutputStream().write(bytes);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            int r;
            try {
                r = in.read();
            } catch (java.net.SocketException reset) {
                r = -1; // closed with a reset: closed too
            }
            assertEquals(-1, r, "the node should close the connection");
        }
    }
}
