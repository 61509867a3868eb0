package io.psmr.ordering.ringpaxos;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A learner (a replica) crashes and stays down, under many seeds, with every learner reporting checkpoints
 * ({@link Learner.Reporting#CHECKPOINTS}, a checkpoint every {@value #CHECKPOINT_EVERY} instances). The cluster must
 * go on deciding far past the log capacity, the acceptors must trim past the dead learner's last report, and the
 * learner restarted from its last checkpoint must either deliver exactly what the live learners delivered after it
 * (same values at the same Paxos instances) or, if the acceptors trimmed past it, say so exactly once.
 *
 * <p>Even seeds keep the learner down briefly (well under the learner silence): it must catch up by fetching. Odd seeds
 * keep it down until the cluster decided four log capacities past its report: it must be trimmed past.
 *
 * <p>{@code -Dpsmr.ringpaxos.restartSeeds=N} runs N seeds (default 100); {@code -Dpsmr.seed=S} runs only seed S.
 */
class LearnerRestartSimulationTest {

    private static final int CHECKPOINT_EVERY = 8;
    private static final int SILENCE = 100;
    private static final int VICTIM = 12;

    static RingPaxosConfig config(int acceptors) {
        List<Integer> a = IntStream.range(0, acceptors).boxed().toList();
        return new RingPaxosConfig(a, List.of(10, 11, 12), List.of(20, 21), 8, 32, 64, 16, 4, 2, 10, 8, 20, 4, 16, 5,
                SILENCE);
    }

    /** Takes a checkpoint of every live learner that delivered {@value #CHECKPOINT_EVERY} instances past its last one. */
    private static void checkpoint(SimulatedCluster c, Map<Integer, LearnerCheckpoint> last) {
        for (int l : c.config.learners()) {
            if (c.node(l) instanceof Learner learner && !learner.isTrimmedPast()) {
                LearnerCheckpoint prev = last.getOrDefault(l, LearnerCheckpoint.INITIAL);
                if (learner.nextInstance() - 1 >= prev.deliveredThrough() + CHECKPOINT_EVERY) {
                    LearnerCheckpoint cp = learner.checkpoint();
                    learner.checkpointed(cp.deliveredThrough()); // durable at once, in this model
                    last.put(l, cp);
                }
            }
        }
    }

    private static void step(SimulatedCluster c, Random random, double rate, Map<Integer, LearnerCheckpoint> cps) {
        for (int p : c.config.proposers()) {
            if (random.nextDouble() < rate) {
                c.propose(p);
            }
        }
        c.tick();
        checkpoint(c, cps);
    }

    /** Runs one seed; returns its violations and whether the restarted learner was trimmed past. */
    static List<String> runSeed(long seed, boolean[] trimmedPast) {
        Random random = new Random(seed);
        int acceptors = random.nextInt(4) == 0 ? 5 : 3;
        RingPaxosConfig config = config(acceptors);
        SimulatedCluster c = new SimulatedCluster(config, random);
        for (int l : config.learners()) {
            c.putLearner(new Learner(config, l, LearnerCheckpoint.INITIAL, Learner.Reporting.CHECKPOINTS), false);
        }
        double loss = random.nextDouble() * 0.1;
        c.network.lossRate(loss);
        c.network.duplicateRate(random.nextDouble() * 0.1);
        c.network.maxDelay(1 + random.nextInt(4));
        double rate = 0.2 + random.nextDouble() * 0.3;
        boolean longDown = seed % 2 != 0;
        Map<Integer, LearnerCheckpoint> cps = new HashMap<>();
        List<String> violations = new ArrayList<>();

        // Faults: acceptors crash and restart (a quorum stays up).
        for (int t = 0; t < 150; t++) {
            if (random.nextDouble() < 0.02 && c.down().size() < config.f()) {
                List<Integer> up = c.liveAcceptors();
                c.crash(up.get(random.nextInt(up.size())));
            }
            if (random.nextDouble() < 0.03 && !c.down().isEmpty()) {
                c.restart(c.down().first());
            }
            step(c, random, rate, cps);
        }
        for (int a : List.copyOf(c.down())) {
            c.restart(a);
        }

        // The victim crashes; its last durable checkpoint is where it will restart.
        LearnerCheckpoint cp = cps.getOrDefault(VICTIM, LearnerCheckpoint.INITIAL);
        c.crashLearner(VICTIM);
        long victimReport = c.lastReport.getOrDefault(VICTIM, 0L);
        if (longDown) {
            long target = victimReport + 4L * config.logCapacity();
            int ticks = 0;
            while (ticks < 3 * SILENCE || highestDecided(c) < target) {
                step(c, random, rate, cps);
                if (++ticks > 5_000) {
                    violations.add("stalled with learner " + VICTIM + " down: decided up to " + highestDecided(c)
                            + ", its last report " + victimReport);
                    return violations;
                }
            }
            for (int a : config.acceptors()) {
                if (c.storage(a).trimmedTo() <= victimReport) {
                    violations.add("acceptor " + a + " trimmed only to " + c.storage(a).trimmedTo()
                            + ", not past the dead learner's report " + victimReport);
                }
            }
        } else {
            for (int t = 0; t < 10; t++) {
                step(c, random, rate, cps);
            }
        }

        // Restart from the checkpoint, go on under the same faults, then heal and let everything complete.
        c.putLearner(new Learner(config, VICTIM, cp, Learner.Reporting.CHECKPOINTS), true);
        for (int t = 0; t < 100; t++) {
            step(c, random, rate, cps);
        }
        c.heal();
        for (int t = 0; t < 4_000 && !done(c); t++) {
            c.tick();
            checkpoint(c, cps);
        }

        Map<Integer, List<Output.Delivery>> live = new TreeMap<>(c.delivered);
        live.remove(VICTIM);
        violations.addAll(HistoryChecker.violations(live, c.proposed, true));
        violations.addAll(HistoryChecker.violations(c.delivered, c.proposed, false)); // the first incarnation: a prefix
        List<Output.Delivery> expected = c.delivered.get(10).stream()
                .filter(d -> d.instance() > cp.deliveredThrough()).toList();
        List<Output.Delivery> got = c.resumedDelivered.get(VICTIM);
        List<Long> signals = c.trimmedPastSignals.getOrDefault(VICTIM, List.of());
        if (signals.size() > 1) {
            violations.add("trimmed-past signalled " + signals.size() + " times: " + signals);
        }
        trimmedPast[0] = !signals.isEmpty();
        if (signals.isEmpty()) {
            if (!got.equals(expected)) {
                violations.add("resumed learner delivered " + got.size() + " values, the live learner " + expected.size()
                        + " after instance " + cp.deliveredThrough() + "; first difference at "
                        + firstDifference(got, expected));
            }
            if (longDown) {
                violations.add("down far past the log capacity, yet never told it was trimmed past");
            }
        } else {
            if (signals.get(0) < cp.nextInstance()) {
                violations.add("trimmed past at " + signals.get(0) + ", below its next instance " + cp.nextInstance());
            }
            if (!got.equals(expected.subList(0, Math.min(got.size(), expected.size())))) {
                violations.add("resumed learner's deliveries before the trim are not the live learner's");
            }
            if (!longDown) {
                violations.add("down " + 10 + " ticks only, yet trimmed past at " + signals.get(0));
            }
        }
        return violations;
    }

    private static boolean done(SimulatedCluster c) {
        if (c.acknowledged.size() < c.proposed.size()) {
            return false;
        }
        for (int l : List.of(10, 11)) {
            if (c.delivered.get(l).size() < c.proposed.size()) {
                return false;
            }
        }
        Learner victim = (Learner) c.node(VICTIM);
        return victim.isTrimmedPast() || victim.nextInstance() > c.delivered.get(10).get(c.delivered.get(10).size() - 1).instance();
    }

    private static long highestDecided(SimulatedCluster c) {
        return c.liveAcceptors().stream().mapToLong(a -> c.storage(a).highestDecided()).max().orElse(0);
    }

    private static int firstDifference(List<Output.Delivery> a, List<Output.Delivery> b) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            if (!a.get(i).equals(b.get(i))) {
                return i;
            }
        }
        return n;
    }

    @Test
    void aDeadLearnerNoLongerStallsTheClusterAndARestartedOneCatchesUpOrIsToldItWasTrimmedPast() {
        String only = System.getProperty("psmr.seed");
        long first = only != null ? Long.parseLong(only) : 1;
        int count = only != null ? 1 : Integer.getInteger("psmr.ringpaxos.restartSeeds", 100);
        int caughtUp = 0;
        int trimmed = 0;
        for (long seed = first; seed < first + count; seed++) {
            boolean[] trimmedPast = new boolean[1];
            List<String> v;
            try {
                v = runSeed(seed, trimmedPast);
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError("seed " + seed + " threw; rerun with -Dpsmr.seed=" + seed, e);
            }
            if (!v.isEmpty()) {
                fail("seed " + seed + " (rerun with -Dpsmr.seed=" + seed + "): " + v);
            }
            if (trimmedPast[0]) {
                trimmed++;
            } else {
                caughtUp++;
            }
        }
        if (only == null) {
            assertTrue(caughtUp >= count / 2 && trimmed >= count / 2, "caught up " + caughtUp + ", trimmed past " + trimmed);
        }
        System.out.printf("learner restart simulation: %d seeds from %d, %d caught up by fetching, %d trimmed past%n",
                count, first, caughtUp, trimmed);
    }
}
