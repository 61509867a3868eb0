package io.psmr.ordering.ringpaxos.net;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.Subscription;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * For the network tests of the restartable runtime: 3 {@link RingPaxosAcceptor}s (ids 0..2, on their own data
 * directories or in memory) and one learner-only {@link RingPaxosBroadcast} (id 10) whose deliveries are recorded.
 * Proposers (ids 20 and 21) are the test's own. Acceptors can be closed and restarted on the same port.
 */
final class AcceptorCluster implements AutoCloseable {

    static final int LEARNER = 10;
    static final int PROPOSER = 20;
    static final int OTHER_PROPOSER = 21;
    static final RingPaxosConfig CONFIG = RingPaxosConfig.of(List.of(0, 1, 2), List.of(LEARNER), List.of(PROPOSER, OTHER_PROPOSER));
    /** 5 ms ticks, and reconnects backing off to at most 200 ms, so a restarted acceptor is found again quickly. */
    static final RingPaxosTransportConfig TRANSPORT = new RingPaxosTransportConfig(16 << 20, 1 << 20, 4096, Duration.ofMillis(5),
            Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(1), 4 << 20, 256, io.psmr.ordering.transport.LinkSecurity.plain());
    static final long WAIT_S = 20;

    final Map<Integer, InetSocketAddress> peers = new ConcurrentHashMap<>();
    private final Map<Integer, RingPaxosAcceptor> acceptors = new TreeMap<>();
    private final Path dataDir;
    final RingPaxosBroadcast learner;
    final RingPaxosNetworkTest.Recorder delivered = new RingPaxosNetworkTest.Recorder();
    final Subscription subscription;

    /** Starts the acceptors (on {@code dataDir/acceptor-i}, or in memory if null) and the learner. */
    AcceptorCluster(Path dataDir) {
        this.dataDir = dataDir;
        for (int id : CONFIG.acceptors()) {
            start(id, new InetSocketAddress("127.0.0.1", 0));
        }
        learner = RingPaxosBroadcast.builder(CONFIG, LEARNER, TRANSPORT, peers).build();
        peers.put(LEARNER, learner.learnerAddress());
        subscription = learner.subscribe(AtomicBroadcast.FIRST_INSTANCE, delivered);
        learner.start();
    }

    private void start(int id, InetSocketAddress bind) {
        RingPaxosAcceptor a = RingPaxosAcceptor.start(CONFIG, id, TRANSPORT, bind, peers,
                dataDir == null ? null : dataDir.resolve("acceptor-" + id));
        synchronized (acceptors) {
            acceptors.put(id, a);
        }
        peers.put(id, a.localAddress());
    }

    /** Closes acceptor {@code id} (its port is released; its data directory stays). */
    void close(int id) {
        RingPaxosAcceptor a;
        synchronized (acceptors) {
            a = acceptors.remove(id);
        }
        a.close();
    }

    /** Starts acceptor {@code id} again on the port it had, from its data directory. */
    void restart(int id) {
        start(id, peers.get(id));
    }

    RingPaxosAcceptor acceptor(int id) {
        synchronized (acceptors) {
            return acceptors.get(id);
        }
    }

    /** Waits until acceptor {@code id} coordinates with a completed Phase 1, and it alone. */
    void awaitCoordinator(int id) throws InterruptedException {
        await(() -> {
            synchronized (acceptors) {
                return acceptors.entrySet().stream().allMatch(e -> isCoordinator(e.getValue()) == (e.getKey() == id));
            }
        }, "acceptor " + id + " to coordinate alone");
    }

    /** Asks {@code acceptor} whether it coordinates, failing after {@link #WAIT_S} rather than hanging. */
    static boolean isCoordinator(RingPaxosAcceptor acceptor) {
        try {
            return acceptor.isCoordinator().get(WAIT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted asking " + acceptor + " whether it coordinates", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("cannot ask " + acceptor + " whether it coordinates: " + e, e);
        }
    }

    /** Waits until the learner delivered {@code count} values, and checks they are gap-free. */
    List<String> awaitDelivered(int count) throws InterruptedException {
        assertTrue(subscription.awaitDelivered(count, WAIT_S, TimeUnit.SECONDS),
                "the learner delivered " + delivered.snapshot().size() + " of " + count);
        assertNull(delivered.error);
        return delivered.snapshot();
    }

    /** Polls {@code condition} every 5 ms until it holds, failing after {@link #WAIT_S}. */
    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(5);
        }
    }

    @Override
    public void close() {
        learner.close();
        synchronized (acceptors) {
            acceptors.values().forEach(RingPaxosAcceptor::close);
            acceptors.clear();
        }
    }
}
