package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A throwaway PBFT cluster of a replica's shape (its pillars, leader rotation and selection; 4 replicas whatever its
 * f), run in memory before the replica serves: it orders requests, loses replica 0 (closed, as a crash), changes views
 * on every pillar with the lost replica excluded from leading, and orders again. It touches nothing of the replica's
 * state.
 *
 * <p><b>Why.</b> The JIT compiles the hot message handlers ({@code PbftPillar.step}, {@code PbftCodec}, the leader
 * policy) with only the message types and branches that it has seen, and traps the rest. A replica that never saw a
 * view change before its first real one deoptimises every one of them at once, runs them interpreted, and recompiles
 * them while the others do the same: on 2 cores, seconds of low throughput after the view change itself is over
 * (docs/pbft.md, "Failover rehearsal"). Having run the failover path once, the profiles hold it and the compiled
 * code keeps it.
 *
 * <p>Its own keys (derived from a fixed seed), its own threads and a loopback network: nothing leaves the JVM, and
 * its replicas log their view changes at DEBUG only ({@link PbftReplicaNode.Settings#withLabel}).
 *
 * <p><b>Threads.</b> {@link #run} blocks the calling thread until the rehearsal ends or its time limit passes, and
 * closes every thread it started (named {@code psmr-pbft-rehearsal-<id>}) before it returns.
 */
public final class FailoverRehearsal {

    /**
     * Requests submitted before the crash, and again after it: enough for the handlers to be compiled with profiles
     * (C1's tier 3) before the view change, whatever n, and cheap next to three other replicas starting on 2 cores.
     */
    static final int REQUESTS_PER_PHASE = 96;
    private static final long KEY_SEED = 0x5eed_fa11_0fe5L;
    private static final int LOST = 0;

    /**
     * What the rehearsal did.
     *
     * @param delivered    requests that every correct replica delivered, of {@code submitted}
     * @param submitted    requests submitted over both phases
     * @param minView      the lowest view any correct replica's pillar reached (at least 1 once every pillar changed)
     * @param tookNanos    how long it ran
     * @param failure      why it stopped early, or null when it completed
     */
    public record Outcome(long delivered, long submitted, long minView, long tookNanos, String failure) {
        /** Whether both phases completed and every pillar changed views. */
        public boolean completed() {
            return failure == null;
        }
    }

    private FailoverRehearsal() {
    }

    private static void checkLimit(Duration limit) {
        if (limit.isNegative() || limit.isZero()) {
            throw new IllegalArgumentException("rehearsal limit must be positive: " + limit);
        }
    }

    /**
     * Runs the rehearsal for a cluster of {@code shape} (its pillars, leader rotation and selection; f = 1 and
     * timeouts of its own), within {@code limit}.
     *
     * @throws IllegalArgumentException if {@code limit} is not positive
     */
    public static Outcome run(PbftConfig shape, Duration limit) {
        checkLimit(limit);
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        // Checkpoints every 32 instances, so that it passes through stable checkpoints too; the default timeouts.
        // f = 1 whatever the shape's: a larger f runs the same code with more messages per instance, and seven
        // replicas rehearsing seven-replica clusters at once on 2 cores did not finish in 20 s.
        PbftConfig config = new PbftConfig(1, shape.pillars(), 32, 64, 50, 6400, 0, 10,
                shape.leaderRotation(), 256, 1024).withLeaderSelection(shape.leaderSelection(), 20, 1L << 20);
        int n = config.replicaCount();
        int pillars = config.pillars();
        PbftKeys keys = PbftKeys.forTesting(KEY_SEED, n, n * pillars);
        LoopbackNetwork network = new LoopbackNetwork(n, pillars, 4096, 1024);
        AtomicLongArray delivered = new AtomicLongArray(n);
        List<PbftReplicaNode> nodes = new ArrayList<>(n);
        long submitted = 0;
        try {
            for (int r = 0; r < n; r++) {
                Authenticator auth = new HmacAuthenticator(keys.restrictedTo(r));
                List<PbftCore> cores = new ArrayList<>(pillars);
                for (int p = 0; p < pillars; p++) {
                    cores.add(new PbftPillar(config, r, p, auth));
                }
                int replica = r;
                nodes.add(new PbftReplicaNode(r, config, cores, network, (instance, request) -> {
                    delivered.incrementAndGet(replica);
                    return true;
                }, PbftReplicaNode.Settings.defaults().withThreads(1).withLabel("rehearsal"), System::nanoTime));
            }
            nodes.forEach(PbftReplicaNode::start);
            Authenticator clients = new HmacAuthenticator(keys);
            submitted += submit(network, config, clients, 1);
            String failure = await(nodes, delivered, submitted, false, deadline, "before the crash");
            if (failure == null) {
                nodes.get(LOST).close();
                submitted += submit(network, config, clients, REQUESTS_PER_PHASE + 1); // above every phase-1 number
                failure = await(nodes, delivered, submitted, true, deadline, "after the crash");
            }
            return new Outcome(minDelivered(delivered, n), submitted, minView(nodes), System.nanoTime() - start,
                    failure);
        } finally {
            nodes.forEach(PbftReplicaNode::close);
        }
    }

    /**
     * One phase of requests, spread round robin over the correct replicas and the pillars (client {@code r·Np + p} at
     * replica r, pillar p; request numbers from {@code firstNumber}); returns how many were taken.
     */
    private static long submit(LoopbackNetwork network, PbftConfig config, Authenticator clients, int firstNumber) {
        int n = config.replicaCount();
        int pillars = config.pillars();
        long count = 0;
        for (int i = 0; i < REQUESTS_PER_PHASE; i++) {
            int lane = i % ((n - 1) * pillars);
            int r = LOST + 1 + lane / pillars;
            int p = lane % pillars;
            int number = firstNumber + i / ((n - 1) * pillars);
            byte[] payload = ("rehearsal " + r + "/" + p + "/" + number).getBytes(StandardCharsets.UTF_8);
            if (network.submit(r, p, Request.sign((long) r * pillars + p, number, payload, clients, n))) {
                count++;
            }
        }
        return count;
    }

    /** Waits until every correct replica delivered {@code target} (and changed views, if asked); null, or why not. */
    private static String await(List<PbftReplicaNode> nodes, AtomicLongArray delivered, long target,
                                boolean viewChanged, long deadline, String phase) {
        while (true) {
            boolean done = true;
            for (int r = 0; r < nodes.size(); r++) {
                if (r == LOST) {
                    continue;
                }
                if (nodes.get(r).failure().isPresent()) {
                    return "replica " + r + " failed " + phase + ": " + nodes.get(r).failure().get();
                }
                done &= delivered.get(r) >= target;
            }
            if (done && (!viewChanged || minView(nodes) >= 1)) {
                return null;
            }
            if (System.nanoTime() > deadline) {
                return "the time limit passed " + phase + " (delivered " + minDelivered(delivered, nodes.size())
                        + " of " + target + ", lowest view " + minView(nodes) + ")";
            }
            LockSupport.parkNanos(2_000_000L);
        }
    }

    private static long minDelivered(AtomicLongArray delivered, int n) {
        long min = Long.MAX_VALUE;
        for (int r = 0; r < n; r++) {
            if (r != LOST) {
                min = Math.min(min, delivered.get(r));
            }
        }
        return min;
    }

    private static long minView(List<PbftReplicaNode> nodes) {
        long min = Long.MAX_VALUE;
        for (int r = 0; r < nodes.size(); r++) {
            if (r != LOST) {
                for (PillarSnapshot s : nodes.get(r).pillars()) {
                    min = Math.min(min, s.view());
                }
            }
        }
        return min;
    }
}
