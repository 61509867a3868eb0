package io.psmr.bench.faults;

import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.LeaderSelection;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * What one {@code psmr bench faults} invocation runs, checked by {@link FaultsCommand}. The cluster of every scenario
 * is built in one place, {@link #clusterSpec(LeaderSelection)}, and the load in another, {@link #loadOptions}. Immutable; any thread.
 *
 * @param replicas  PBFT replicas, 3f+1
 * @param pillars   COP pillars per replica
 * @param rotation  how PBFT leaders rotate
 * @param selections the PBFT leader selections to compare: each scenario runs once per selection, in this order
 * @param clients   closed-loop clients
 * @param faultFree how long the load runs before the fault
 * @param warmup    the start of the fault-free window: what completes before it is not measured
 * @param faulty    how long the load runs after the fault's onset
 * @param scenarios the faults, one run each, in this order
 * @param seed      the seed of the target choice and of the clients
 * @param outDir    the folder that receives {@code bench-faults-<timestamp>/}
 * @param cores     this machine's {@link Runtime#availableProcessors()}
 */
public record FaultSettings(int replicas, int pillars, LeaderRotation rotation, List<LeaderSelection> selections, int clients, Duration faultFree,
                            Duration warmup, Duration faulty, List<FaultScenario> scenarios, long seed, Path outDir, int cores) {

    /** The replicas' scheduler, as {@code cluster start}'s default. */
    static final SchedulerMode MODE = SchedulerMode.BITMAP_INDEXED;
    /** Worker threads per replica, as {@code cluster start}'s default. */
    static final int WORKERS = 2;
    /** Store capacity in entries, as {@code cluster start}'s default. */
    static final long MAX_KEYS = 100_000;
    /** Value size, as {@code cluster start}'s and {@code load}'s default. */
    static final int VALUE_SIZE = 64;
    /** Ring Paxos' tick, unused by PBFT; as {@code cluster start}'s default. */
    static final int TICK_MILLIS = 10;
    /** What the default warm-up leaves of a long fault-free window to measure. */
    static final Duration MEASURED = Duration.ofSeconds(10);

    /** Checks the ranges and copies the list. */
    public FaultSettings {
        if (replicas < 4 || (replicas - 1) % 3 != 0) {
            throw new IllegalArgumentException("replicas must be 3f+1 with f >= 1, got " + replicas);
        }
        Objects.requireNonNull(rotation, "rotation");
        selections = List.copyOf(selections);
        if (selections.isEmpty()) {
            throw new IllegalArgumentException("no leader selection to run");
        }
        Objects.requireNonNull(faultFree, "faultFree");
        Objects.requireNonNull(warmup, "warmup");
        if (warmup.isNegative() || warmup.compareTo(faultFree) >= 0) {
            throw new IllegalArgumentException("warmup must be from 0 to below faultFree (" + faultFree + "), got " + warmup);
        }
        Objects.requireNonNull(faulty, "faulty");
        Objects.requireNonNull(outDir, "outDir");
        scenarios = List.copyOf(scenarios);
        if (scenarios.isEmpty()) {
            throw new IllegalArgumentException("no fault to run");
        }
    }

    /** f: the faults PBFT tolerates, and how many replicas each scenario faults. */
    public int faultsTolerated() {
        return (replicas - 1) / 3;
    }

    /**
     * The cluster every scenario starts afresh: {@code cluster start --ordering pbft}'s defaults (bitmap-indexed,
     * 2 workers, 100,000 keys of 64-byte values) with this invocation's replicas, pillars and rotation, and leader selection {@code selection}. The one
     * place where the cluster's shape is decided: a new cluster option goes here.
     */
    public ClusterSpec clusterSpec(LeaderSelection selection) {
        ClusterSettings settings = new ClusterSettings(MODE, WORKERS, MAX_KEYS, VALUE_SIZE, TICK_MILLIS);
        return ClusterSpec.pbft(replicas, pillars, rotation, settings).withLeaderSelection(selection);
    }

    /**
     * The f replicas every scenario faults: the first f of replica-1 … replica-n shuffled by {@link #seed}, in
     * ascending order. The same in every scenario of an invocation, so that the scenarios differ in the fault only.
     */
    public List<String> targets() {
        List<Integer> ids = new ArrayList<>();
        for (int i = 1; i <= replicas; i++) {
            ids.add(i);
        }
        Collections.shuffle(ids, new Random(seed));
        List<Integer> chosen = new ArrayList<>(ids.subList(0, faultsTolerated()));
        Collections.sort(chosen);
        return chosen.stream().map(i -> "replica-" + i).toList();
    }

    /**
     * The default warm-up skipped at the start of a fault-free window of {@code faultFree}: all but its last 10 s, and
     * at least a quarter of it. Fresh node JVMs compile for about 30 s under load on a 2-core machine, and the faulty
     * window must not be compared with a fault-free one that was still compiling.
     */
    public static Duration defaultWarmup(Duration faultFree) {
        Duration quarter = faultFree.dividedBy(4);
        Duration allButMeasured = faultFree.minus(MEASURED);
        return allButMeasured.compareTo(quarter) > 0 ? allButMeasured : quarter;
    }

    /**
     * The load of a scenario, {@code ./psmr load}'s defaults but the clients: 50 % READs, 5 % MULTI_PUTs of 4 keys,
     * the rest CREATE/UPDATE/DELETE over 10,000 keys, 64-byte values; batches of up to 200, a window of one batch,
     * no linger, no added conflicts, a 5 s retry timeout. {@code longest} bounds it: the benchmark ends it earlier.
     */
    public LoadOptions loadOptions(Duration longest) {
        WorkloadSpec w = new WorkloadSpec(clients, 10_000, 0.5, 0.05, 4, VALUE_SIZE, longest, 0, seed);
        return new LoadOptions(replicas, MODE, WORKERS, 200, 1, Duration.ZERO, 0, Duration.ofSeconds(5), w);
    }
}
