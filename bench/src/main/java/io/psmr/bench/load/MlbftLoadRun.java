package io.psmr.bench.load;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.kvstore.mlbft.EmbeddedMlbftCluster;
import io.psmr.kvstore.mlbft.MlbftReplica;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.proxy.ProxyStats;
import io.psmr.proxy.ReplyTrust;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@link LoadRun} over MLBFT, the multi-leader baseline: an {@link EmbeddedMlbftCluster} of P PBFT instances (one per
 * partition) and {@code 3f + 1} store replicas in this JVM, the proxy accepting a result only from {@code f + 1}
 * matching replies; at the end every replica's digest is compared as for the others. The store runs without a
 * capacity guard (see {@link MlbftReplica}).
 */
public final class MlbftLoadRun implements EmbeddedOrdering {

    static final MlbftLoadRun RUNNER = new MlbftLoadRun();

    private MlbftLoadRun() {
    }

    /** Replicas inside the load process over {@code partitions} PBFT instances of {@code 3f + 1} replicas. */
    static LoadTarget target(int f, int partitions, int maxBatchBytes) {
        return new LoadTarget(OrderingProtocol.MLBFT, true, EmbeddedMlbftCluster.config(f, maxBatchBytes),
                io.psmr.kvstore.ratis.RatisDurability.SYNC, partitions);
    }

    @Override
    public OrderingProtocol protocol() {
        return OrderingProtocol.MLBFT;
    }

    @Override
    public boolean needsMatchingReplies() {
        return true;
    }

    @Override
    public List<String> settingFlags() {
        return List.of("--partitions");
    }

    @Override
    public String settingsName() {
        return "MLBFT";
    }

    @Override
    public LoadTarget target(Settings settings) {
        return settings.mlbft();
    }

    @Override
    public String describeSettings(LoadTarget target) {
        return String.format(Locale.ROOT, ": f=%d, %d partitions, each ordered by its own PBFT instance; clients accept "
                + "f+1 matching replies", target.pbft().f(), target.partitions());
    }

    @Override
    public void putSettings(LoadTarget target, ObjectNode report) {
        report.put("f", target.pbft().f());
        report.put("partitions", target.partitions());
        report.put("reply_trust", "matching");
    }

    /** Runs over {@code target}'s partitions; {@code started} and {@code inspect} are not called. */
    @Override
    public LoadReport run(LoadOptions o, LoadTarget target, HistorySink history, RunControls controls,
                          Consumer<EmbeddedCluster> started, Consumer<EmbeddedCluster> inspect) throws InterruptedException {
        PbftConfig config = target.pbft();
        if (o.replicas() != config.replicaCount()) {
            throw new IllegalArgumentException("MLBFT with f=" + config.f() + " runs " + config.replicaCount()
                    + " replicas, not " + o.replicas());
        }
        ReplicaConfig rc = replicaConfig(o);
        try (EmbeddedMlbftCluster cluster = EmbeddedMlbftCluster.start(config.f(), target.partitions(), rc)) {
            ProxyConfig pc = proxyConfig(LoadRun.proxyConfig(o, rc), cluster);
            LoadResult result;
            ProxyStats stats;
            try (ClientProxy proxy = ClientProxy.start(pc, cluster.orderingClient(), cluster.router(), LoadRun.hotKeys(o, pc))) {
                try {
                    result = LoadGenerator.run(proxy, o.workload(), history, controls.withProbe(() -> silent(cluster)));
                } catch (LoadStalledException e) {
                    throw e.withReport(new LoadReport(o, rc, e.result(), proxy.stats(), List.of(),
                            Runtime.getRuntime().availableProcessors(), target));
                }
                stats = proxy.stats();
            }
            if (!cluster.awaitQuiescent(LoadRun.QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the MLBFT replicas did not run every ordered request within "
                        + LoadRun.QUIESCE_SECONDS + " s of the clients stopping: " + cluster.replicas());
            }
            return new LoadReport(o, rc, result, stats, cluster.digests(), Runtime.getRuntime().availableProcessors(), target);
        }
    }

    /**
     * A proxy's settings for {@code cluster}: f+1 matching replies, and batches of one set of partitions
     * ({@link io.psmr.proxy.BatchLanes}), as MLBFT's requests are; the window stays the one given, as under COP-PBFT
     * (docs/decisions.md, MLBFT).
     */
    public static ProxyConfig proxyConfig(ProxyConfig base, EmbeddedMlbftCluster cluster) {
        return base.toBuilder().replyTrust(ReplyTrust.matching(cluster.f(), cluster.replicaIds()))
                .lanes(cluster.partitions()::partitionSetOf).build();
    }

    /** {@code ./psmr load}'s replica settings without a store capacity, which MLBFT cannot guard. */
    static ReplicaConfig replicaConfig(LoadOptions o) {
        return LoadRun.replicaConfig(o).toBuilder().capacity(StoreCapacity.unbounded()).build();
    }

    /** The store replicas that stopped and the PBFT replicas that fail-stopped; empty if none. */
    static String silent(EmbeddedMlbftCluster cluster) {
        StringBuilder b = new StringBuilder();
        for (MlbftReplica r : cluster.replicas()) {
            r.failure().ifPresent(f -> b.append(b.length() == 0 ? "" : ", ").append("replica ").append(r.id())
                    .append(" (stopped: ").append(f).append(')'));
        }
        for (int p = 0; p < cluster.partitions().partitions(); p++) {
            int partition = p;
            for (int i = 0; i < cluster.replicas().size(); i++) {
                int id = i;
                cluster.instance(p).node(i).failure().ifPresent(f -> b.append(b.length() == 0 ? "" : ", ")
                        .append("PBFT replica ").append(id).append(" of partition ").append(partition)
                        .append(" (fail-stopped: ").append(f).append(')'));
            }
        }
        return b.toString();
    }
}
