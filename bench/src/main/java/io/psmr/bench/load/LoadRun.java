package io.psmr.bench.load;

import io.psmr.kvstore.StoreSizing;
import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import java.util.List;
import java.util.function.Consumer;

/**
 * One load run: an embedded cluster of {@link LoadOptions#replicas()} replicas under the target's ordering
 * (started by its {@link EmbeddedOrdering}), one {@link ClientProxy}, the {@link LoadGenerator}'s clients;
 * then every replica is brought to quiescence and its digest taken. Call from one thread.
 */
public final class LoadRun {

    /** How long the replicas may take to apply what was ordered once the clients have stopped. */
    static final long QUIESCE_SECONDS = 120;

    private LoadRun() {
    }

    /** The replica settings of a run (replica id 1; the cluster numbers them): the options' capacity, a store sized above it. */
    public static ReplicaConfig replicaConfig(LoadOptions o) {
        return ReplicaConfig.builder().mode(o.mode())
                .workers(o.workers())
                .limits(KvLimits.defaults())
                .capacity(o.capacity())
                .store(StoreSizing.storeConfig(o.capacity()))
                .build();
    }

    /** The proxy settings of a run. */
    public static ProxyConfig proxyConfig(LoadOptions o, ReplicaConfig replicas) {
        return ProxyConfig.builder()
                .proxyId(1)
                .detection(replicas.detection())
                .limits(replicas.limits())
                .maxBatchCommands(o.batch())
                .window(o.window())
                .linger(o.linger())
                .retryTimeout(o.retryTimeout())
                .build();
    }

    /**
     * The decorator that gives a run's proxy its conflict rate: {@link LoadOptions#conflictPercent()}%
     * of its batches write the hot key. One per proxy (it keeps the hot writer's session).
     */
    public static HotKeyDecorator hotKeys(LoadOptions o, ProxyConfig proxy) {
        return HotKeyDecorator.percent(o.conflictPercent(), proxy.limits());
    }

    /**
     * Runs the load and returns the report.
     *
     * @param history receives every client operation
     * @param inspect called with the quiescent cluster before it closes (tests read the replicas' stores); may be null
     * @throws IllegalStateException if the replicas do not apply everything within {@value #QUIESCE_SECONDS} s
     */
    public static LoadReport run(LoadOptions o, HistorySink history, Consumer<EmbeddedCluster> inspect)
            throws InterruptedException {
        return run(o, LocalLoadRun.TARGET, history, inspect);
    }

    /**
     * Runs the load over {@code ordering} and returns the report. With Ratis the
     * cluster is a {@link io.psmr.kvstore.ratis.EmbeddedRatisCluster} whose logs and snapshots live in a temporary directory,
     * removed afterwards, and {@code inspect} is not called.
     *
     * @throws IllegalStateException if the replicas do not apply everything within {@value #QUIESCE_SECONDS} s,
     *                               or no Ratis leader is elected within {@value #QUIESCE_SECONDS} s
     */
    public static LoadReport run(LoadOptions o, LoadTarget ordering, HistorySink history,
                                 Consumer<EmbeddedCluster> inspect) throws InterruptedException {
        return run(o, ordering, history, RunControls.NONE, null, inspect);
    }

    /**
     * Runs the load over {@code ordering}, watched by {@code controls} (its probe is replaced by one
     * that names the embedded replicas that stopped serving), and returns the report.
     *
     * @param started called with the embedded cluster once it runs, before the clients start (tests
     *                stop replicas from it); may be null; not called over Ratis or PBFT
     * @throws LoadStalledException if the run stalled; it carries the report of what completed (no digests)
     */
    public static LoadReport run(LoadOptions o, LoadTarget ordering, HistorySink history, RunControls controls,
                                 Consumer<EmbeddedCluster> started, Consumer<EmbeddedCluster> inspect)
            throws InterruptedException {
        return EmbeddedOrdering.of(ordering.ordering()).run(o, ordering, history, controls, started, inspect);
    }

    /** The embedded replicas that stopped serving, with what stopped them; empty if every one serves. */
    static String silentReplicas(EmbeddedCluster cluster) {
        return silentReplicas(cluster.replicas());
    }

    /** Those of {@code replicas} that stopped serving, with what stopped them; empty if every one serves. */
    static String silentReplicas(List<Replica> replicas) {
        StringBuilder b = new StringBuilder();
        for (Replica r : replicas) {
            if (!r.isServing()) {
                b.append(b.length() == 0 ? "" : ", ").append("replica ").append(r.id()).append(" (stopped serving")
                        .append(r.failure().map(f -> ": " + f).orElse("")).append(')');
            }
        }
        return b.length() == 0 ? "" : b.toString();
    }
}
