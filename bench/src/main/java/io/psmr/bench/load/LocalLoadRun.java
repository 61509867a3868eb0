package io.psmr.bench.load;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.proxy.ProxyStats;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@link LoadRun} over the local sequencer: an {@link EmbeddedCluster} of {@link LoadOptions#replicas()} replicas
 * (each with its own scheduler and in-memory Chronicle Map), the proxy accepting the first reply.
 */
final class LocalLoadRun implements EmbeddedOrdering {

    static final LocalLoadRun RUNNER = new LocalLoadRun();

    /** The embedded local-sequencer target. */
    static final LoadTarget TARGET = LoadTarget.embedded(RUNNER.protocol());

    private LocalLoadRun() {
    }

    @Override
    public OrderingProtocol protocol() {
        return OrderingProtocol.LOCAL;
    }

    @Override
    public LoadReport run(LoadOptions o, LoadTarget target, HistorySink history, RunControls controls,
                          Consumer<EmbeddedCluster> started, Consumer<EmbeddedCluster> inspect) throws InterruptedException {
        return runEmbeddedCluster(o, history, controls, started, inspect);
    }

    /** The run over an {@link EmbeddedCluster} (the local sequencer's): see {@link EmbeddedOrdering#run}. */
    static LoadReport runEmbeddedCluster(LoadOptions o, HistorySink history, RunControls controls,
                                         Consumer<EmbeddedCluster> started, Consumer<EmbeddedCluster> inspect)
            throws InterruptedException {
        ReplicaConfig rc = LoadRun.replicaConfig(o);
        ProxyConfig pc = LoadRun.proxyConfig(o, rc);
        try (EmbeddedCluster cluster = EmbeddedCluster.start(o.replicas(), rc);
             ClientProxy proxy = ClientProxy.start(pc, cluster.broadcast(), cluster.router(), LoadRun.hotKeys(o, pc))) {
            if (started != null) {
                started.accept(cluster);
            }
            LoadResult result;
            try {
                result = LoadGenerator.run(proxy, o.workload(), history, controls.withProbe(() -> LoadRun.silentReplicas(cluster)));
            } catch (LoadStalledException e) {
                throw e.withReport(new LoadReport(o, rc, e.result(), proxy.stats(), List.of(),
                        Runtime.getRuntime().availableProcessors()));
            }
            ProxyStats stats = proxy.stats();
            if (!cluster.awaitQuiescent(LoadRun.QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the replicas did not apply every ordered batch within " + LoadRun.QUIESCE_SECONDS
                        + " s of the clients stopping");
            }
            List<Long> digests = cluster.digests();
            if (inspect != null) {
                inspect.accept(cluster);
            }
            return new LoadReport(o, rc, result, stats, digests, Runtime.getRuntime().availableProcessors());
        }
    }
}
