package io.psmr.bench.clusterbench;

import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one {@code psmr bench cluster} invocation runs. The clusters are {@code cluster start}'s defaults (Ring Paxos:
 * 3 acceptors and 2 replicas; Ratis: 3 peers with fsync; PBFT: 4 replicas of 2 pillars, rotating leaders), all
 * bitmap-indexed with 2 workers; the load is {@code ./psmr load}'s. Immutable; any thread.
 *
 * @param orderings the orderings, each a process cluster, in report order
 * @param clients   the client counts of the sweep, in order
 * @param window    commands each client keeps in flight
 * @param runs      measured runs per (ordering, clients), interleaved: round by round, every ordering and client count
 * @param warmup    load before each measured window, on the same proxy
 * @param clusterWarmup the longest warm-up of each fresh cluster: uncounted loads of the first client count until its
 *                  nodes' JIT compilers are quiet (on 2 cores a fresh node JVM compiles for a minute or two)
 * @param duration  each measured window
 * @param idle      how long the idle CPU of each fresh cluster is measured, before its first load
 * @param reference whether the same orderings also run in one JVM ({@code bench e2e}'s code path) as the reference
 * @param insecure  whether the clusters run plain TCP ({@code cluster start --insecure}) instead of mutual TLS
 * @param seed      the clients' seed
 * @param outDir    the folder that receives {@code bench-cluster-<timestamp>/}
 * @param cores     this machine's {@link Runtime#availableProcessors()}
 */
public record ClusterBenchSettings(List<OrderingProtocol> orderings, List<Integer> clients, int window, int runs,
                                   Duration warmup, Duration clusterWarmup, Duration duration, Duration idle,
                                   boolean reference, boolean insecure, long seed,
                                   Path outDir, int cores) {

    /** The orderings that run as process clusters, in report order. */
    public static final List<OrderingProtocol> SUPPORTED = List.of(OrderingProtocol.RING_PAXOS, OrderingProtocol.RATIS,
            OrderingProtocol.PBFT);
    /** The replicas' scheduler, as {@code cluster start}'s default. */
    static final SchedulerMode MODE = SchedulerMode.BITMAP_INDEXED;
    /** Worker threads per replica, as {@code cluster start}'s default. */
    static final int WORKERS = 2;
    /** Keys the clients use, as {@code ./psmr load}'s default. */
    static final int KEYS = 10_000;
    /** Value size, as {@code cluster start}'s and {@code load}'s default. */
    static final int VALUE_SIZE = 64;
    /** Most commands per batch, as {@code ./psmr load}'s default. */
    static final int BATCH = 200;

    /** Checks the values and copies the lists. */
    public ClusterBenchSettings {
        orderings = List.copyOf(orderings);
        clients = List.copyOf(clients);
        if (orderings.isEmpty() || !SUPPORTED.containsAll(orderings)) {
            throw new IllegalArgumentException("orderings must be some of " + SUPPORTED + ", got " + orderings);
        }
        if (clients.isEmpty() || clients.stream().anyMatch(c -> c < 1)) {
            throw new IllegalArgumentException("clients must be at least 1 each, got " + clients);
        }
        if (window < 1 || runs < 1) {
            throw new IllegalArgumentException("window and runs must be at least 1, got " + window + " and " + runs);
        }
        Objects.requireNonNull(warmup, "warmup");
        Objects.requireNonNull(clusterWarmup, "clusterWarmup");
        Objects.requireNonNull(duration, "duration");
        Objects.requireNonNull(idle, "idle");
        Objects.requireNonNull(outDir, "outDir");
    }

    /** The cluster of {@code ordering}, as {@code cluster start --ordering} starts it by default. */
    public ClusterSpec clusterSpec(OrderingProtocol ordering) {
        ClusterSettings s = new ClusterSettings(MODE, WORKERS, 100_000, VALUE_SIZE, 10);
        return switch (ordering) {
            case RING_PAXOS -> ClusterSpec.ringPaxos(3, 2, s);
            case RATIS -> ClusterSpec.ratis(3, s);
            case PBFT -> ClusterSpec.pbft(4, 2, LeaderRotation.ROTATING, s);
            default -> throw new IllegalArgumentException(ordering.cliName() + " does not run as a process cluster");
        };
    }

    /** The load of one run: {@code clients} clients for a warm-up of {@code warm} and the measured window together. */
    public LoadOptions loadOptions(OrderingProtocol ordering, int clients, Duration warm) {
        return new LoadOptions(clusterSpec(ordering).replicas(), MODE, WORKERS, BATCH, window, Duration.ZERO, 0,
                Duration.ofSeconds(5), workload(clients, warm.plus(duration)));
    }

    /** {@code ./psmr load}'s mix for {@code clients} clients over {@code length}: the processes' and the reference's. */
    public WorkloadSpec workload(int clients, Duration length) {
        return new WorkloadSpec(clients, KEYS, 0.5, 0.05, 4, VALUE_SIZE, length, 0, seed);
    }

    /** Roughly how long the invocation takes, in seconds: cluster starts, idle windows, loads and the reference. */
    public long estimateSeconds() {
        long perCluster = 15 + idle.toSeconds() + clusterWarmup.toSeconds()
                + clients.size() * (warmup.plus(duration).toSeconds() + 3);
        long processes = runs * orderings.size() * perCluster;
        long inOneJvm = reference ? orderings.size() * clients.size() * (runs + 1) * (duration.toSeconds() + 4) : 0;
        return processes + inOneJvm;
    }
}
