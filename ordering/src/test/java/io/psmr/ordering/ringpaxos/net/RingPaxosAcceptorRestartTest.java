package io.psmr.ordering.ringpaxos.net;

import static io.psmr.ordering.ringpaxos.net.AcceptorCluster.PROPOSER;
import static io.psmr.ordering.ringpaxos.net.AcceptorCluster.WAIT_S;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.ringpaxos.AcceptorNode;
import io.psmr.ordering.ringpaxos.AcceptorStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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

            cluster.close(0); // the coordinator
            proposeAll(client, "without-0", 100, acknowledged);

            cluster.restart(0); // same port, same directory
            assertEquals(port0, cluster.acceptor(0).localAddress());
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
                    public void beforeSend() {
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
