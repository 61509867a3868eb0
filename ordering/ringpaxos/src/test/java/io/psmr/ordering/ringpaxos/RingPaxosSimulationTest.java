package io.psmr.ordering.ringpaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ring Paxos over the simulated network, under many seeds. Each run: a fault phase with loss,
 * duplication, reordering, delays and acceptor crashes and restarts while proposers propose; then
 * the faults heal and the network is made reliable until everything is delivered. After each run
 * the histories must satisfy agreement, integrity, total order and liveness.
 *
 * <p>{@code -Dpsmr.ringpaxos.seeds=N} runs N seeds (default 300); {@code -Dpsmr.seed=S} runs only
 * seed S. A failure names its seed.
 */
class RingPaxosSimulationTest {

    private static final int FAULT_TICKS = 300;
    private static final int HEAL_LIMIT_TICKS = 4_000;

    /** A small window and log, so bounds and trimming are exercised in short runs. */
    static RingPaxosConfig smallConfig(int acceptors, int learners, int proposers) {
        List<Integer> a = IntStream.range(0, acceptors).boxed().toList();
        List<Integer> l = IntStream.range(10, 10 + learners).boxed().toList();
        List<Integer> p = IntStream.range(20, 20 + proposers).boxed().toList();
        return new RingPaxosConfig(a, l, p, 8, 32, 64, 16, 4, 2, 10, 8, 20, 4, 16, 5);
    }

    /** The outcome of one seeded run. */
    record Outcome(long seed, List<String> violations, long ticks, long messages, int proposals) {
    }

    /** Runs the scenario of one seed. */
    static Outcome runSeed(long seed) {
        return runSeed(seed, null);
    }

    /** Runs the scenario of one seed, with acceptors on {@code FileAcceptorLog}s under {@code disk} if not null. */
    static Outcome runSeed(long seed, Path disk) {
        Random random = new Random(seed);
        int acceptors = random.nextInt(4) == 0 ? 5 : 3;
        SimulatedCluster c = new SimulatedCluster(smallConfig(acceptors, 2 + random.nextInt(2), 2), random, disk);
        try {
            return run(seed, random, acceptors, c);
        } finally {
            c.closeLogs();
        }
    }

    private static Outcome run(long seed, Random random, int acceptors, SimulatedCluster c) {
        c.network.lossRate(random.nextDouble() * 0.2);
        c.network.duplicateRate(random.nextDouble() * 0.1);
        c.network.maxDelay(1 + random.nextInt(6));
        // In one run in five, let every acceptor crash (no quorum for a while): durable storage must
        // carry the votes across; otherwise keep a quorum up, as the liveness property assumes.
        int maxDown = random.nextInt(5) == 0 ? acceptors : c.config.f();
        double proposeRate = 0.1 + random.nextDouble() * 0.4;
        for (int t = 0; t < FAULT_TICKS; t++) {
            for (int p : c.config.proposers()) {
                if (random.nextDouble() < proposeRate) {
                    c.propose(p);
                }
            }
            if (random.nextDouble() < 0.02 && c.down().size() < maxDown) {
                List<Integer> up = c.liveAcceptors();
                c.crash(up.get(random.nextInt(up.size())));
            }
            if (random.nextDouble() < 0.03 && !c.down().isEmpty()) {
                List<Integer> downed = new ArrayList<>(c.down());
                c.restart(downed.get(random.nextInt(downed.size())));
            }
            c.tick();
        }
        c.heal();
        int healed = 0;
        while (!c.allDone() && healed < HEAL_LIMIT_TICKS) {
            c.tick();
            healed++;
        }
        List<String> violations = new ArrayList<>(HistoryChecker.violations(c.delivered, c.proposed, true));
        if (c.acknowledged.size() != c.proposed.size()) {
            violations.add("liveness: " + (c.proposed.size() - c.acknowledged.size()) + " proposals never acknowledged");
        }
        for (int a : c.config.acceptors()) {
            if (c.storage(a).size() > c.config.logCapacity()) {
                violations.add("bound: acceptor " + a + " holds " + c.storage(a).size() + " instances");
            }
        }
        return new Outcome(seed, violations, c.now, c.network.sent(), c.proposed.size());
    }

    @Test
    void manySeedsUnderFaults() {
        runSeeds("psmr.ringpaxos.seeds", 300, null);
    }

    /**
     * The same scenarios with every acceptor on a real {@code FileAcceptorLog} (compacting at 4 KiB): a crash
     * closes it and a restart replays it from the file. {@code -Dpsmr.ringpaxos.fileSeeds=N} runs N seeds
     * (default 10).
     */
    @Test
    void seedsOnFileStorage(@TempDir Path disk) {
        runSeeds("psmr.ringpaxos.fileSeeds", 10, disk);
    }

    /** Storage restored from the file behaves exactly as storage kept in memory: the same seed gives the same run. */
    @Test
    void fileStorageRunsAsMemoryStorage(@TempDir Path disk) {
        for (long seed = 1; seed <= 3; seed++) {
            assertEquals(runSeed(seed), runSeed(seed, disk.resolve("seed-" + seed)), "seed " + seed);
        }
    }

    private static void runSeeds(String countProperty, int defaultCount, Path disk) {
        String only = System.getProperty("psmr.seed");
        long first = only != null ? Long.parseLong(only) : 1;
        int count = only != null ? 1 : Integer.getInteger(countProperty, defaultCount);
        long proposals = 0;
        long messages = 0;
        for (long seed = first; seed < first + count; seed++) {
            Outcome o;
            try {
                o = runSeed(seed, disk == null ? null : disk.resolve("seed-" + seed));
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError("seed " + seed + " threw; rerun with -Dpsmr.seed=" + seed, e);
            }
            if (!o.violations().isEmpty()) {
                fail("seed " + seed + " (rerun with -Dpsmr.seed=" + seed + "): " + o.violations());
            }
            proposals += o.proposals();
            messages += o.messages();
        }
        assertTrue(proposals > count, "the runs proposed almost nothing: " + proposals);
        System.out.printf("ringpaxos simulation%s: %d seeds from %d, %d proposals, %d messages%n",
                disk == null ? "" : " on file storage", count, first, proposals, messages);
    }

    @Test
    void sameSeedSameRun() {
        Outcome a = runSeed(42);
        Outcome b = runSeed(42);
        assertEquals(a, b);
    }

    @Test
    void reliableNetworkDeliversEverythingAndTrims() {
        SimulatedCluster c = new SimulatedCluster(smallConfig(3, 2, 2), new Random(7));
        for (int t = 0; t < 500; t++) {
            for (int p : c.config.proposers()) {
                c.propose(p);
            }
            c.tick();
        }
        c.run(100);
        assertTrue(c.allDone());
        assertEquals(List.of(), HistoryChecker.violations(c.delivered, c.proposed, true));
        assertTrue(c.proposed.size() > 500, "throughput too low: " + c.proposed.size());
        // The log was trimmed far beyond its capacity of 32 instances: memory stays bounded.
        for (int a : c.config.acceptors()) {
            assertTrue(c.storage(a).trimmedTo() > 100, "acceptor " + a + " trimmed to " + c.storage(a).trimmedTo());
            assertTrue(c.storage(a).size() <= c.config.logCapacity());
        }
        assertTrue(((AcceptorNode) c.node(0)).isCoordinator());
    }

    @Test
    void coordinatorCrashHandsOverToNextAcceptor() {
        SimulatedCluster c = new SimulatedCluster(smallConfig(3, 2, 1), new Random(11));
        for (int t = 0; t < 50; t++) {
            c.propose(20);
            c.tick();
        }
        c.crash(0);
        for (int t = 0; t < 200; t++) {
            c.propose(20);
            c.tick();
        }
        assertTrue(((AcceptorNode) c.node(1)).isCoordinator(), "acceptor 1 should coordinate");
        c.run(200);
        assertTrue(c.allDone());
        assertEquals(List.of(), HistoryChecker.violations(c.delivered, c.proposed, true));
        // With the old coordinator back, the lowest id takes over again with a higher ballot.
        c.restart(0);
        for (int t = 0; t < 100; t++) {
            c.propose(20);
            c.tick();
        }
        c.run(200);
        assertTrue(((AcceptorNode) c.node(0)).isCoordinator());
        assertTrue(c.allDone());
        assertEquals(List.of(), HistoryChecker.violations(c.delivered, c.proposed, true));
    }
}
