package io.psmr.ordering.ringpaxos.net;

import static io.psmr.ordering.ringpaxos.net.AcceptorCluster.CONFIG;
import static io.psmr.ordering.ringpaxos.net.AcceptorCluster.PROPOSER;
import static io.psmr.ordering.ringpaxos.net.AcceptorCluster.TRANSPORT;
import static io.psmr.ordering.ringpaxos.net.AcceptorCluster.WAIT_S;
import static io.psmr.ordering.ringpaxos.net.RingPaxosAcceptorRestartTest.proposeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OutcomeUnknownException;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.ringpaxos.Proposer;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link RingPaxosProposerClient}: acknowledgements, overload, close, and a restarted proposer id. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingPaxosProposerClientTest {

    private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

    private static RingPaxosProposerClient client(AcceptorCluster cluster, long firstSeq) {
        RingPaxosProposerClient c = RingPaxosProposerClient.start(CONFIG, PROPOSER, firstSeq, TRANSPORT, ANY, cluster.peers, 256);
        cluster.peers.put(PROPOSER, c.localAddress());
        return c;
    }

    @Test
    void proposalsCompleteOnceDecidedAndAreDeliveredOnce() throws Exception {
        try (AcceptorCluster cluster = new AcceptorCluster(null); RingPaxosProposerClient c = client(cluster, 1)) {
            List<String> acknowledged = new ArrayList<>();
            proposeAll(c, "v", 200, acknowledged); // each future completes with UNKNOWN_INSTANCE
            List<String> delivered = cluster.awaitDelivered(200);
            assertEquals(Set.copyOf(acknowledged), new HashSet<>(delivered));
            assertEquals(200, new HashSet<>(delivered).size());
        }
    }

    @Test
    void overloadIsRefusedAtOnceAndCloseFailsWhatWaits() throws Exception {
        // No acceptor is reachable: nothing is ever decided.
        Map<Integer, InetSocketAddress> nowhere = new ConcurrentHashMap<>();
        int window = CONFIG.proposerWindow();
        RingPaxosProposerClient c = RingPaxosProposerClient.start(CONFIG, PROPOSER, 1, TRANSPORT, ANY, nowhere, window + 4);
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < window + 4; i++) {
            futures.add(c.propose(new byte[] {(byte) i}));
        }
        CompletableFuture<Long> refused = c.propose(new byte[] {1});
        assertTrue(refused.isCompletedExceptionally(), "refused at once");
        assertInstanceOf(OverloadedException.class, cause(refused));
        assertThrows(IllegalArgumentException.class, () -> c.propose(new byte[TRANSPORT.maxValueBytes() + 1]));
        // Wait until the proposer core holds a full window (sent), the rest still queued.
        int inCore = c.node().call(core -> ((Proposer) core).pendingCount()).get(WAIT_S, TimeUnit.SECONDS);
        assertEquals(window, inCore);

        c.close();
        for (int i = 0; i < futures.size(); i++) {
            Throwable t = cause(futures.get(i));
            // Sent ones: the outcome is unknown; queued ones were never sent, so they were not ordered.
            Class<? extends Throwable> type = i < window ? OutcomeUnknownException.class : BroadcastClosedException.class;
            assertTrue(type.isInstance(t), "proposal " + i + ": " + t);
            String expected = i < window ? "may or may not have been ordered" : "was not ordered";
            assertTrue(t.getMessage().contains(expected), "proposal " + i + ": " + t.getMessage());
        }
        assertInstanceOf(BroadcastClosedException.class, cause(c.propose(new byte[] {2})));
        assertThrows(IllegalStateException.class, c::start);
    }

    @Test
    void aRestartedProposerIdWithAHigherFirstSeqIsDelivered() throws Exception {
        try (AcceptorCluster cluster = new AcceptorCluster(null)) {
            List<String> acknowledged = new ArrayList<>();
            long used;
            try (RingPaxosProposerClient first = client(cluster, 1)) {
                proposeAll(first, "first", 50, acknowledged);
                used = first.node().call(core -> ((Proposer) core).nextSeq()).get(WAIT_S, TimeUnit.SECONDS) - 1;
            }
            assertEquals(50, used);
            // A new process with the same proposer id starts above every number the first one used.
            try (RingPaxosProposerClient second = client(cluster, used + 1)) {
                proposeAll(second, "second", 50, acknowledged);
            }
            List<String> delivered = cluster.awaitDelivered(100);
            assertEquals(Set.copyOf(acknowledged), new HashSet<>(delivered));
            assertEquals(100, new HashSet<>(delivered).size());
        }
    }

    private static Throwable cause(CompletableFuture<Long> f) throws InterruptedException {
        try {
            f.get(WAIT_S, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + f.join());
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the future did not complete", e);
        }
    }
}
