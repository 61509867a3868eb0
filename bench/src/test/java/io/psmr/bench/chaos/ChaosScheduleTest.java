package io.psmr.bench.chaos;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.scheduler.SchedulerMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.kvstore.cluster.ProposerSlot;
import io.psmr.kvstore.pbft.PbftClusterSettings;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The fault schedule: a function of the seed and the membership; never more than a kind's bound
 * (or --max-down) faulted at once, on PBFT f counting Byzantine replicas and those faulty at the
 * start; only restartable targets; every fault healed by the end.
 * Many seeds, fast; {@code -Dpsmr.seed=S} starts the seeds at S.
 */
class ChaosScheduleTest {

    private static final long BASE_SEED = Long.getLong("psmr.seed", 20261122L);
    private static final int SEEDS = 500;
    private static final List<FaultKind> BOTH = List.of(FaultKind.KILL, FaultKind.PAUSE);

    /** Ring Paxos refuses replica restarts today: the launcher's rule, in the shape it is asked. */
    private static final Function<String, Optional<String>> RINGPAXOS_RULE =
            n -> n.startsWith("replica-") ? Optional.of("no state transfer") : Optional.empty();

    @Test
    void sameSeedSameScheduleAndOtherSeedsDiffer() {
        FaultTargets targets = FaultTargets.of(ringPaxos(5, 3), RINGPAXOS_RULE);
        ScheduleSettings s = ScheduleSettings.defaults(60_000, BOTH, true, Integer.MAX_VALUE, 100);
        Set<List<PlannedFault>> distinct = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            long seed = BASE_SEED + i;
            FaultSchedule a = FaultSchedule.generate(seed, targets, s);
            FaultSchedule b = FaultSchedule.generate(seed, FaultTargets.of(ringPaxos(5, 3), RINGPAXOS_RULE), s);
            assertEquals(a, b, "seed " + seed);
            assertTrue(a.faults().size() >= 10, "a fault every 1-3 s over 60 s, seed " + seed + ": " + a.faults().size());
            distinct.add(a.faults());
        }
        assertEquals(50, distinct.size(), "different seeds give different schedules");
        assertNotEquals(FaultSchedule.generate(BASE_SEED, targets, s).faults(),
                FaultSchedule.generate(BASE_SEED, FaultTargets.of(ringPaxos(3, 3), RINGPAXOS_RULE), s).faults(),
                "membership is an input");
    }

    @Test
    void boundsTargetsAndHealsHoldOverManySeeds() {
        Random shapes = new Random(BASE_SEED);
        for (int i = 0; i < SEEDS; i++) {
            long seed = BASE_SEED + i;
            boolean ratis = shapes.nextBoolean();
            int voters = 1 + shapes.nextInt(7);
            ClusterDescriptor cluster = ratis ? ratis(voters) : ringPaxos(voters, 1 + shapes.nextInt(3));
            // Sometimes the rule lets replicas restart too (state transfer landed): then they are targets.
            boolean replicasRestart = shapes.nextInt(3) == 0;
            Function<String, Optional<String>> rule = ratis || replicasRestart ? n -> Optional.empty() : RINGPAXOS_RULE;
            FaultTargets targets = FaultTargets.of(cluster, rule);
            List<FaultKind> kinds = switch (shapes.nextInt(3)) {
                case 0 -> List.of(FaultKind.KILL);
                case 1 -> List.of(FaultKind.PAUSE);
                default -> BOTH;
            };
            boolean restart = shapes.nextBoolean();
            int maxDown = shapes.nextBoolean() ? Integer.MAX_VALUE : 1 + shapes.nextInt(2);
            long duration = 5_000 + shapes.nextInt(60_000);
            ScheduleSettings s = ScheduleSettings.defaults(duration, kinds, restart, maxDown, ratis ? 1000 : 100);
            FaultSchedule schedule = FaultSchedule.generate(seed, targets, s);
            String ctx = "seed " + seed + ", " + (ratis ? "ratis" : "ringpaxos") + " " + voters + " voters, " + kinds
                    + (restart ? " restart" : "") + ", maxDown " + maxDown + ", " + duration + " ms: " + schedule.faults();

            Map<String, FaultGroup> byKind = new java.util.HashMap<>();
            targets.groups().forEach(g -> byKind.put(g.kind(), g));
            for (PlannedFault f : schedule.faults()) {
                FaultGroup g = byKind.get(f.group());
                assertTrue(g.nodes().contains(f.node()), "only restartable targets of the fault's kind, " + ctx);
                assertTrue(rule.apply(f.node()).isEmpty(), "never a node restart refuses, " + ctx);
                assertTrue(kinds.contains(f.kind()), ctx);
                assertTrue(f.atMillis() > 0 && f.atMillis() < duration - ScheduleSettings.TAIL_MILLIS, ctx);
                if (f.atEnd()) {
                    assertTrue(f.kind() == FaultKind.KILL && !restart, "only a kill without restart waits for the end, " + ctx);
                    assertEquals(duration, f.healAtMillis(), ctx);
                } else {
                    assertTrue(f.healAtMillis() <= duration - ScheduleSettings.TAIL_MILLIS, "healed before the quiet tail, " + ctx);
                    long length = f.healAtMillis() - f.atMillis();
                    long min = f.kind() == FaultKind.PAUSE ? s.minPauseMillis() : s.minDownMillis();
                    long max = f.kind() == FaultKind.PAUSE ? s.maxPauseMillis() : s.maxDownMillis();
                    assertTrue(length >= min && length <= max, "bounded fault length " + length + ", " + ctx);
                }
                if (f.kind() == FaultKind.PAUSE) {
                    assertTrue(f.healAtMillis() - f.atMillis() > (ratis ? 1000 : 100), "a pause outlasts the detector, " + ctx);
                }
            }
            for (FaultGroup g : targets.groups()) {
                assertTrue(schedule.maxConcurrent(g.kind()) <= g.maxDown(), g.kind() + " bound " + g.maxDown() + ", " + ctx);
            }
            assertTrue(schedule.maxConcurrent(null) <= maxDown, "--max-down, " + ctx);
            assertNoNodeFaultedTwiceAtOnce(schedule, ctx);
            for (int k = 1; k < schedule.faults().size(); k++) {
                long gap = schedule.faults().get(k).atMillis() - schedule.faults().get(k - 1).atMillis();
                assertTrue(gap >= s.minGapMillis(), "faults at least a second apart, " + ctx);
            }
            if (!targets.any()) {
                assertEquals(List.of(), schedule.faults(), ctx);
            }
        }
    }

    @Test
    void ringPaxosReplicasAreNoTargetsWhileRestartRefusesThem() {
        FaultTargets targets = FaultTargets.of(ringPaxos(3, 2), RINGPAXOS_RULE);
        assertEquals(List.of("acceptor-0", "acceptor-1", "acceptor-2"), targets.groups().get(0).nodes());
        assertEquals(1, targets.groups().get(0).maxDown());
        assertEquals(List.of(), targets.groups().get(1).nodes());
        FaultTargets later = FaultTargets.of(ringPaxos(3, 2), n -> Optional.empty());
        assertEquals(List.of("replica-1", "replica-2"), later.groups().get(1).nodes());
        assertEquals(1, later.groups().get(1).maxDown(), "one replica must stay live");
        assertTrue(!FaultTargets.of(ringPaxos(1, 1), RINGPAXOS_RULE).any(), "one acceptor tolerates no fault");
        assertEquals(1, FaultTargets.of(ratis(3), n -> Optional.empty()).groups().get(0).maxDown());
        assertEquals(2, FaultTargets.of(ratis(5), n -> Optional.empty()).groups().get(0).maxDown());
    }

    @Test
    void killsWithoutRestartUseUpTheBoundForTheRun() {
        FaultTargets targets = FaultTargets.of(ringPaxos(3, 2), RINGPAXOS_RULE);
        for (int i = 0; i < 50; i++) {
            FaultSchedule s = FaultSchedule.generate(BASE_SEED + i, targets,
                    ScheduleSettings.defaults(30_000, List.of(FaultKind.KILL), false, Integer.MAX_VALUE, 100));
            assertEquals(1, s.faults().size(), "one acceptor of three, down until the end: " + s.faults());
            assertTrue(s.faults().get(0).atEnd());
        }
    }

    /**
     * PBFT: one group of replicas with the bound f less the replicas faulty at the start, which are no targets;
     * Byzantine faults count towards it, carry a mode among the campaign's and last their own lengths.
     */
    @Test
    void pbftSchedulesKeepAtMostFFaultyCountingByzantineOnes() {
        Random shapes = new Random(BASE_SEED);
        Set<ByzantineMode> drawn = new HashSet<>();
        for (int i = 0; i < SEEDS; i++) {
            long seed = BASE_SEED + i;
            int f = 1 + shapes.nextInt(2);
            int n = 3 * f + 1;
            Map<String, String> faultyAtStart = new LinkedHashMap<>();
            int already = shapes.nextInt(f); // fewer than f: f of them leave no fault to inject
            for (int k = 0; k < already; k++) {
                faultyAtStart.put("replica-" + (1 + shapes.nextInt(n)), k % 2 == 0 ? "down" : "byzantine silent");
            }
            ClusterDescriptor cluster = pbft(f, Map.of());
            FaultTargets targets = FaultTargets.of(cluster, name -> Optional.empty(), faultyAtStart);
            assertEquals(1, targets.groups().size());
            FaultGroup g = targets.groups().get(0);
            assertEquals(f - faultyAtStart.size(), g.maxDown(), "seed " + seed);
            assertEquals(n - faultyAtStart.size(), g.nodes().size(), "seed " + seed);
            List<FaultKind> kinds = shapes.nextBoolean() ? List.of(FaultKind.BYZANTINE)
                    : List.of(FaultKind.KILL, FaultKind.PAUSE, FaultKind.BYZANTINE);
            boolean restart = shapes.nextBoolean();
            long duration = 5_000 + shapes.nextInt(60_000);
            ScheduleSettings s = ScheduleSettings.defaults(duration, kinds, restart, Integer.MAX_VALUE, 2000);
            FaultSchedule schedule = FaultSchedule.generate(seed, targets, s);
            String ctx = "seed " + seed + ", f " + f + ", faulty at start " + faultyAtStart + ", " + kinds
                    + (restart ? " restart" : "") + ", " + duration + " ms: " + schedule.faults();
            assertTrue(schedule.maxConcurrent(null) <= f - faultyAtStart.size(), "at most f faulty at once, " + ctx);
            assertNoNodeFaultedTwiceAtOnce(schedule, ctx);
            for (PlannedFault pf : schedule.faults()) {
                assertTrue(!faultyAtStart.containsKey(pf.node()), "no replica faulty at the start is a target, " + ctx);
                if (pf.kind() == FaultKind.BYZANTINE) {
                    assertTrue(ScheduleSettings.CAMPAIGN_MODES.contains(pf.mode()), ctx);
                    drawn.add(pf.mode());
                    assertTrue(!pf.atEnd(), "a Byzantine replica is restarted correct during the load, " + ctx);
                    long length = pf.healAtMillis() - pf.atMillis();
                    assertTrue(length >= s.minByzantineMillis() && length <= s.maxByzantineMillis(),
                            "bounded Byzantine length " + length + ", " + ctx);
                } else {
                    assertEquals(null, pf.mode(), ctx);
                }
            }
        }
        assertEquals(Set.copyOf(ScheduleSettings.CAMPAIGN_MODES), drawn, "every campaign mode is drawn by some seed");
    }

    /** Schedules without Byzantine faults draw nothing more: the seeds of crash-only campaigns keep their schedules. */
    @Test
    void aByzantineFaultDrawsItsModeOnlyWhenItIsOne() {
        FaultTargets targets = FaultTargets.of(pbft(1, Map.of()), name -> Optional.empty(), Map.of());
        ScheduleSettings crash = ScheduleSettings.defaults(60_000, BOTH, true, Integer.MAX_VALUE, 2000);
        ScheduleSettings noModes = new ScheduleSettings(crash.durationMillis(), crash.kinds(), crash.restart(), crash.maxDown(),
                crash.minGapMillis(), crash.maxGapMillis(), crash.minPauseMillis(), crash.maxPauseMillis(), crash.minDownMillis(),
                crash.maxDownMillis(), crash.tailMillis(), crash.minByzantineMillis(), crash.maxByzantineMillis(), List.of());
        for (int i = 0; i < 50; i++) {
            assertEquals(FaultSchedule.generate(BASE_SEED + i, targets, noModes), FaultSchedule.generate(BASE_SEED + i, targets, crash),
                    "seed " + (BASE_SEED + i));
        }
    }

    /** More than f replicas faulty at the start, or f of them, is refused, naming the bound and the replicas. */
    @Test
    void pbftRefusalsNameTheBound() {
        ClusterDescriptor four = pbft(1, Map.of());
        Map<String, String> two = new LinkedHashMap<>();
        two.put("replica-2", "byzantine silent");
        two.put("replica-3", "down");
        assertEquals(Optional.of("2 replicas are already Byzantine or down (replica-2 byzantine silent, replica-3 down), more than"
                + " the f = (n-1)/3 = 1 of 4 replicas that may be faulty at once"), FaultTargets.pbftRefusal(four, two));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> FaultTargets.of(four, name -> Optional.empty(), two));
        assertEquals(FaultTargets.pbftRefusal(four, two).orElseThrow(), e.getMessage());
        assertEquals(Optional.of("1 replica is already Byzantine or down (replica-3 down): with at most f = (n-1)/3 = 1 of 4"
                + " replicas faulty at once, no fault is left to inject"), FaultTargets.pbftRefusal(four, Map.of("replica-3", "down")));
        assertEquals(Optional.empty(), FaultTargets.pbftRefusal(four, Map.of()));
        assertEquals(Optional.empty(), FaultTargets.pbftRefusal(pbft(2, Map.of()), Map.of("replica-3", "down")));
    }

    /** What a PBFT cluster's replicas are at the start: Byzantine as cluster.json says, down if their process is not running. */
    @Test
    void faultyAtStartReadsTheModesAndTheProcesses() {
        long me = ProcessHandle.current().pid();
        ClusterDescriptor running = pbft(1, Map.of("replica-2", ByzantineMode.WRONG_DIGESTS), me, 4);
        assertEquals(Map.of("replica-2", "byzantine wrong-digests"), FaultTargets.faultyAtStart(running));
        ClusterDescriptor twoUp = pbft(1, Map.of(), me, 2);
        assertEquals(List.of("replica-3", "replica-4"), List.copyOf(FaultTargets.faultyAtStart(twoUp).keySet()));
        assertEquals(Map.of(), FaultTargets.faultyAtStart(ringPaxos(3, 2)), "crash-tolerant clusters are bounded by kind instead");
    }

    private static void assertNoNodeFaultedTwiceAtOnce(FaultSchedule schedule, String ctx) {
        List<PlannedFault> fs = schedule.faults();
        for (int a = 0; a < fs.size(); a++) {
            for (int b = a + 1; b < fs.size(); b++) {
                if (fs.get(a).node().equals(fs.get(b).node())) {
                    assertTrue(fs.get(b).atMillis() >= fs.get(a).healAtMillis(), "a node faulted again before its heal, " + ctx);
                }
            }
        }
    }

    /**
     * Network faults mixed with kills and pauses: one network fault at a time; the nodes a partition or a one-way fault
     * cuts off, and the leader an isolation takes, count against each kind's bound beside the nodes killed or paused; a
     * partition's side is at most half the nodes; a one-way fault names two different nodes; same seed, same schedule.
     */
    @Test
    void networkFaultsTakeOneTurnEachAndKeepTheBounds() {
        List<FaultKind> kinds = java.util.Arrays.stream(FaultKind.values()).filter(k -> k != FaultKind.BYZANTINE).toList();
        Random shapes = new Random(BASE_SEED);
        Set<FaultKind> seen = new HashSet<>();
        for (int i = 0; i < SEEDS; i++) {
            long seed = BASE_SEED + i;
            boolean ratis = shapes.nextBoolean();
            int voters = 3 + 2 * shapes.nextInt(3);
            ClusterDescriptor cluster = ratis ? ratis(voters) : ringPaxos(voters, 1 + shapes.nextInt(3));
            FaultTargets targets = FaultTargets.of(cluster, n -> Optional.empty());
            ScheduleSettings s = ScheduleSettings.defaults(60_000, kinds, true, Integer.MAX_VALUE, 100);
            FaultSchedule schedule = FaultSchedule.generate(seed, targets, s);
            assertEquals(schedule, FaultSchedule.generate(seed, targets, s), "seed " + seed);
            Map<String, String> groupOf = new LinkedHashMap<>();
            targets.groups().forEach(g -> g.nodes().forEach(n -> groupOf.put(n, g.kind())));
            for (PlannedFault a : schedule.faults()) {
                seen.add(a.kind());
                long at = a.atMillis();
                List<PlannedFault> active = schedule.faults().stream()
                        .filter(b -> b.atMillis() <= at && at < b.healAtMillis()).toList();
                assertTrue(active.stream().filter(b -> b.kind().network()).count() <= 1,
                        "one network fault at a time, seed " + seed + ": " + active);
                Map<String, Integer> down = new java.util.HashMap<>();
                for (PlannedFault b : active) {
                    for (String n : FaultSchedule.faultedBy(b)) {
                        down.merge(groupOf.get(n), 1, Integer::sum);
                    }
                    if (b.kind() == FaultKind.ISOLATE_LEADER) {
                        down.merge(targets.groups().get(0).kind(), 1, Integer::sum);
                    }
                }
                for (FaultGroup g : targets.groups()) {
                    assertTrue(down.getOrDefault(g.kind(), 0) <= g.maxDown(), "seed " + seed + ", " + g.kind() + " at "
                            + at + " ms: " + active);
                }
                if (a.kind() == FaultKind.PARTITION_HALVES) {
                    assertTrue(!a.cutOff().isEmpty() && a.cutOff().size() <= groupOf.size() / 2, "seed " + seed + ": " + a);
                    assertEquals(a.cutOff().size(), new HashSet<>(a.cutOff()).size(), "seed " + seed + ": " + a);
                }
                if (a.kind() == FaultKind.ONE_WAY) {
                    assertNotEquals(a.node(), a.peer(), "seed " + seed + ": " + a);
                    assertEquals(List.of(a.node()), a.cutOff(), "seed " + seed + ": " + a);
                }
                if (a.kind().network()) {
                    assertTrue(a.healAtMillis() <= 60_000 - s.tailMillis(), "healed during the load, seed " + seed + ": " + a);
                }
            }
        }
        assertEquals(new HashSet<>(kinds), seen, "every kind drawn over the seeds");
    }

    /**
     * {@code --beyond-f}: the same seeds that never cut off more than a kind's bound at once without it do so with it,
     * never all of a kind's targets (one of each stays untouched), and Byzantine replicas stay at most f.
     */
    @Test
    void beyondFLiftsTheBoundToAllButOneAndKeepsByzantineWithinF() {
        List<FaultKind> crash = java.util.Arrays.stream(FaultKind.values()).filter(k -> k != FaultKind.BYZANTINE).toList();
        List<FaultKind> all = List.of(FaultKind.values());
        int[] beyond = new int[2]; // [without, with]: instants with more than the bound cut off
        for (int i = 0; i < SEEDS; i++) {
            long seed = BASE_SEED + i;
            boolean pbft = i % 3 == 2;
            ClusterDescriptor cluster = pbft ? pbft(1, Map.of()) : i % 3 == 0 ? ratis(3) : ringPaxos(3, 2);
            FaultTargets targets = FaultTargets.of(cluster, n -> Optional.empty());
            for (int with = 0; with < 2; with++) {
                ScheduleSettings s = ScheduleSettings.defaults(60_000, pbft ? all : crash, true, Integer.MAX_VALUE, 100)
                        .withBeyondF(with == 1);
                FaultSchedule schedule = FaultSchedule.generate(seed, targets, s);
                assertEquals(schedule, FaultSchedule.generate(seed, targets, s), "seed " + seed);
                Map<String, String> groupOf = new LinkedHashMap<>();
                targets.groups().forEach(g -> g.nodes().forEach(n -> groupOf.put(n, g.kind())));
                for (PlannedFault a : schedule.faults()) {
                    long at = a.atMillis();
                    List<PlannedFault> active = schedule.faults().stream()
                            .filter(b -> b.atMillis() <= at && at < b.healAtMillis()).toList();
                    Map<String, Integer> down = new java.util.HashMap<>();
                    for (PlannedFault b : active) {
                        for (String n : FaultSchedule.faultedBy(b)) {
                            down.merge(groupOf.get(n), 1, Integer::sum);
                        }
                        if (b.kind() == FaultKind.ISOLATE_LEADER) {
                            down.merge(targets.groups().get(0).kind(), 1, Integer::sum);
                        }
                    }
                    boolean over = false;
                    for (FaultGroup g : targets.groups()) {
                        int d = down.getOrDefault(g.kind(), 0);
                        String ctx = "seed " + seed + (with == 1 ? " beyond f" : "") + ", " + g.kind() + " at " + at
                                + " ms: " + active;
                        assertTrue(d <= Math.max(g.maxDown(), g.nodes().size() - 1), "one of each kind untouched, " + ctx);
                        if (with == 0) {
                            assertTrue(d <= g.maxDown(), "within the bound without --beyond-f, " + ctx);
                        }
                        over |= d > g.maxDown();
                    }
                    long byzantine = active.stream().filter(b -> b.kind() == FaultKind.BYZANTINE).count();
                    assertTrue(byzantine <= (pbft ? cluster.pbft().f() : 0), "Byzantine at most f, seed " + seed + ": " + active);
                    if (over) {
                        beyond[with]++;
                    }
                }
            }
        }
        assertEquals(0, beyond[0], "never beyond the bound without --beyond-f");
        assertTrue(beyond[1] > SEEDS / 10, "beyond the bound at times with it: " + beyond[1] + " instants over " + SEEDS
                + " seeds");
    }

    static ClusterDescriptor ringPaxos(int acceptors, int replicas) {
        List<ClusterNode> nodes = new ArrayList<>();
        int port = 30000;
        for (int i = 0; i < acceptors; i++) {
            nodes.add(new ClusterNode("acceptor-" + i, NodeRole.ACCEPTOR, i, 0, port++, 0, 0, null, null));
        }
        for (int r = 1; r <= replicas; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, ClusterDescriptor.LEARNER_BASE + r - 1, r, port++, port++, 0,
                    null, null));
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RING_PAXOS, "127.0.0.1", settings(), nodes,
                List.of(new ProposerSlot(ClusterDescriptor.PROPOSER_BASE, port)), null);
    }

    static ClusterDescriptor ratis(int peers) {
        List<ClusterNode> nodes = new ArrayList<>();
        for (int r = 1; r <= peers; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, r, r, 30000 + r, 0, 0, null, null));
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RATIS, "127.0.0.1", settings(), nodes, List.of(),
                "6a8e3e5e-4b36-4c53-9e42-0d6f8b1d2c3a");
    }

    /** A PBFT cluster of 3f+1 replicas, 2 pillars, none running. */
    static ClusterDescriptor pbft(int f, Map<String, ByzantineMode> byzantine) {
        return pbft(f, byzantine, null, 0);
    }

    /** A PBFT cluster of 3f+1 replicas, 2 pillars, the first {@code running} with process {@code pid}. */
    static ClusterDescriptor pbft(int f, Map<String, ByzantineMode> byzantine, Long pid, int running) {
        List<ClusterNode> nodes = new ArrayList<>();
        List<List<Integer>> pillarPorts = new ArrayList<>();
        int port = 31000;
        for (int r = 1; r <= 3 * f + 1; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, r, r, port++, port++, port++, r <= running ? pid : null,
                    null));
            pillarPorts.add(List.of(port++, port++));
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.PBFT, "127.0.0.1", settings(), nodes, List.of(),
                null, new PbftClusterSettings(f, 2, LeaderRotation.ROTATING, pillarPorts, byzantine));
    }

    private static ClusterSettings settings() {
        return new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 16, 10);
    }
}
