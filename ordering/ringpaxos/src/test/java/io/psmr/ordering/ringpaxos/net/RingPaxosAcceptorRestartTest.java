package io.psmr.ordering.ringpaxos.net;

import static io.psmr.ordering.ringpaxos.net.AcceptorCluster.PROPOSER;
import static io.psmr.ordering.ringpaxos.net.AcceptorCluster.WAIT_S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.ringpaxos.AcceptorNode;
import io.psmr.ordering.ringpaxos.AcceptorStorage;
import io.psmr.ordering.ringpaxos.Ballot;
import io.psmr.ordering.ringpaxos.RingPaxosCore;
import io.psmr.ordering.ringpaxos.StorageChange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link RingPaxosAcceptor} closed and restarted on the same port from its data directory rejoins the cluster:
 * over loopback, 3 acceptors with data directories, one learner and a {@link RingPaxosProposerClient}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RingPaxosAcceptorRestartTest {

    @TempDir
    Path data;

    @Test
    void aRestartedCoordinatorRejoinsFromItsDataDirectory() throws Exception {
        try (AcceptorCluster cluster = new AcceptorCluster(data);
             RingPaxosProposerClient client = RingPaxosProposerClient.start(AcceptorCluster.CONFIG, PROPOSER, 1,
                     AcceptorCluster.TRANSPORT, new InetSocketAddress("127.0.0.1", 0), cluster.peers, 256)) {
            cluster.peers.put(PROPOSER, client.localAddress());
            List<String> acknowledged = new ArrayList<>();

            proposeAll(client, "first", 100, acknowledged);
            cluster.awaitCoordinator(0);
            InetSocketAddress port0 = cluster.peers.get(0);
            RingPaxosAcceptor.StorageState before = cluster.acceptor(0).storageState().get(WAIT_S, TimeUnit.SECONDS);
            // Something to lose: a promise, and votes held or trimmed (everything decided may be trimmed already).
            assertTrue(before.promised().isAbove(Ballot.ZERO) && (before.trimmedTo() > 0 || !before.voted().isEmpty()),
                    "acceptor 0 promised and voted before its restart: " + before);

            cluster.close(0); // the coordinator
            proposeAll(client, "without-0", 100, acknowledged);

            cluster.restart(0); // same port, same directory
            assertEquals(port0, cluster.acceptor(0).localAddress());
            assertRestored(before, cluster.acceptor(0).restoredState());
            cluster.awaitCoordinator(0); // the lowest id takes over again, under a higher ballot
            proposeAll(client, "with-0", 50, acknowledged);

            // Only 0 and 2 are left: every decision now needs the restarted acceptor's vote.
            cluster.close(1);
            proposeAll(client, "without-1", 100, acknowledged);

            List<String> delivered = cluster.awaitDelivered(acknowledged.size());
            assertEquals(acknowledged.size(), new HashSet<>(delivered).size(), "a value was delivered twice");
            assertEquals(Set.copyOf(acknowledged), Set.copyOf(delivered), "every acknowledged value, and nothing else");
        }
    }

    @Test
    void aNodeThatCannotMakeItsStateDurableStopsBeforeSending() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        RingPaxosNode node = RingPaxosNode.start(new AcceptorNode(AcceptorCluster.CONFIG, 0,
                        new AcceptorStorage(AcceptorCluster.CONFIG.logCapacity())), AcceptorCluster.CONFIG,
                AcceptorCluster.TRANSPORT, new InetSocketAddress("127.0.0.1", 0), new ConcurrentHashMap<>(),
                new RingPaxosNode.Listener() {
                    @Override
                    public void persist(List<StorageChange> writes, boolean sending) {
                        attempts.incrementAndGet();
                        throw new UncheckedIOException(new IOException("disk full (test)"));
                    }
                });
        try {
            // Its first heartbeat needs a send: the failed write stops the node instead.
            AcceptorCluster.await(() -> {
                try {
                    node.execute(() -> { });
                    return false;
                } catch (RejectedExecutionException closed) {
                    return true;
                }
            }, "the node to stop");
            assertEquals(1, attempts.get(), "nothing more is tried after the failure");
            assertEquals(0, node.droppedMessages(), "no message reached the sending path");
        } finally {
            node.close();
        }
    }

    @Test
    void aCallQueuedWhenTheNodeClosesFailsInsteadOfHanging() throws Exception {
        RingPaxosNode node = RingPaxosNode.start(new AcceptorNode(AcceptorCluster.CONFIG, 0,
                        new AcceptorStorage(AcceptorCluster.CONFIG.logCapacity())), AcceptorCluster.CONFIG,
                AcceptorCluster.TRANSPORT, new InetSocketAddress("127.0.0.1", 0), new ConcurrentHashMap<>(),
                new RingPaxosNode.Listener() { });
        CountDownLatch release = new CountDownLatch(1);
        Thread closer = new Thread(node::close, "closer");
        try {
            node.execute(() -> {
                try {
                    release.await(); // holds the event loop, so the call below stays queued
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            CompletableFuture<Integer> queued = node.call(RingPaxosCore::id);
            closer.start(); // marks the node closed at once, then waits for the loop
            AcceptorCluster.await(() -> {
                try {
                    node.execute(() -> { });
                    return false;
                } catch (RejectedExecutionException closed) {
                    return true;
                }
            }, "the node to be marked closed");
            release.countDown();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> queued.get(WAIT_S, TimeUnit.SECONDS));
            assertInstanceOf(RejectedExecutionException.class, failed.getCause());
            assertTrue(failed.getCause().getMessage().contains("node 0"), failed.getCause().getMessage());
        } finally {
            release.countDown();
            closer.join(TimeUnit.SECONDS.toMillis(WAIT_S));
            node.close();
        }
    }

    /**
     * Checks that {@code restored} (read from the data directory before the restarted node heard any peer) brings
     * back {@code before} (read just before the close; the node may have changed a little more before it stopped,
     * and all of it was made durable): a promise at least as high, a trim point at least as high, and every
     * vote and decision of {@code before} above that trim point. Storage that ignored its directory has no promise and
     * no trim point, and fails.
     */
    static void assertRestored(RingPaxosAcceptor.StorageState before, RingPaxosAcceptor.StorageState restored) {
        assertFalse(restored.promised().isBelow(before.promised()),
                "restored promise " + restored.promised() + " below " + before.promised());
        assertTrue(restored.trimmedTo() >= before.trimmedTo(),
                "restored trim point " + restored.trimmedTo() + " below " + before.trimmedTo());
        Set<Long> voted = new TreeSet<>(before.voted().tailSet(restored.trimmedTo() + 1));
        Set<Long> decided = new TreeSet<>(before.decided().tailSet(restored.trimmedTo() + 1));
        assertTrue(restored.voted().containsAll(voted), "restored votes " + restored.voted() + " miss some of " + voted);
        assertTrue(restored.decided().containsAll(decided),
                "restored decisions " + restored.decided() + " miss some of " + decided);
    }

    /** Proposes {@code count} values and waits for every future; records them as acknowledged. */
    static void proposeAll(OrderingClient client, String prefix, int count, List<String> acknowledged) throws Exception {
        List<CompletableFuture<Long>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(client.propose((prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        for (int i = 0; i < count; i++) {
            assertEquals(OrderingClient.UNKNOWN_INSTANCE, futures.get(i).get(WAIT_S, TimeUnit.SECONDS));
            acknowledged.add(prefix + "-" + i);
        }
    }
}
