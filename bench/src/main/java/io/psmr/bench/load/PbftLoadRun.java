package io.psmr.bench.load;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.pbft.EmbeddedPbftCluster;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.proxy.ProxyStats;
import io.psmr.proxy.ReplyTrust;
import io.psmr.ordering.OrderingProtocol;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@link LoadRun} over PBFT with COP pillars: a {@link EmbeddedPbftCluster} of {@code 3f + 1} PBFT replicas in this JVM,
 * a store replica on each, the proxy proposing through PBFT replica 0 and accepting a result only from {@code f + 1}
 * matching replies ({@link ReplyTrust#matching}); at the end every replica's digest is compared as for the others.
 */
final class PbftLoadRun implements EmbeddedOrdering {

    static final PbftLoadRun RUNNER = new PbftLoadRun();

    private PbftLoadRun() {
    }

    /** Replicas inside the load process, each on its own replica of an in-process PBFT cluster of {@code config}. */
    static LoadTarget target(PbftConfig config) {
        return new LoadTarget(RUNNER.protocol(), true, Objects.requireNonNull(config, "config"));
    }

    @Override
    public OrderingProtocol protocol() {
        return OrderingProtocol.PBFT;
    }

    @Override
    public boolean needsMatchingReplies() {
        return true;
    }

    @Override
    public List<String> settingFlags() {
        return List.of("--pillars", "--leader-rotation");
    }

    @Override
    public String settingsName() {
        return "PBFT";
    }

    @Override
    public LoadTarget target(Settings settings) {
        return target(settings.pbft());
    }

    @Override
    public String describeSettings(LoadTarget target) {
        PbftConfig pbft = target.pbft();
        return String.format(Locale.ROOT, ": f=%d, %d pillars, %s leaders; clients accept f+1 matching replies",
                pbft.f(), pbft.pillars(), pbft.leaderRotation().name().toLowerCase(Locale.ROOT));
    }

    @Override
    public void putSettings(LoadTarget target, ObjectNode report) {
        report.put("f", target.pbft().f());
        report.put("pillars", target.pbft().pillars());
        report.put("leader_rotation", target.pbft().leaderRotation().name().toLowerCase(Locale.ROOT));
        report.put("reply_trust", "matching");
    }

    /** Runs over {@code target}'s PBFT configuration; {@code started} and {@code inspect} are not called. */
    @Override
    public LoadReport run(LoadOptions o, LoadTarget target, HistorySink history, RunControls controls,
                          Consumer<EmbeddedCluster> started, Consumer<EmbeddedCluster> inspect) throws InterruptedException {
        return run(o, target.pbft(), history, controls);
    }

    /** {@code ./psmr load}'s proxy settings with the reply trust a Byzantine ordering needs. */
    static ProxyConfig proxyConfig(LoadOptions o, ReplicaConfig rc, EmbeddedPbftCluster cluster) {
        return LoadRun.proxyConfig(o, rc).toBuilder().replyTrust(ReplyTrust.matching(cluster.f(), cluster.replicaIds())).build();
    }

    static LoadReport run(LoadOptions o, PbftConfig config, HistorySink history, RunControls controls) throws InterruptedException {
        if (o.replicas() != config.replicaCount()) {
            throw new IllegalArgumentException("PBFT with f=" + config.f() + " runs " + config.replicaCount()
                    + " replicas, not " + o.replicas());
        }
        ReplicaConfig rc = LoadRun.replicaConfig(o);
        LoadTarget target = target(config);
        try (EmbeddedPbftCluster cluster = EmbeddedPbftCluster.start(config, rc)) {
            ProxyConfig pc = proxyConfig(o, rc, cluster);
            LoadResult result;
            ProxyStats stats;
            try (ClientProxy proxy = ClientProxy.start(pc, cluster.broadcast(), cluster.router(), LoadRun.hotKeys(o, pc))) {
                try {
                    result = LoadGenerator.run(proxy, o.workload(), history, controls.withProbe(() -> silent(cluster)));
                } catch (LoadStalledException e) {
                    throw e.withReport(new LoadReport(o, rc, e.result(), proxy.stats(), List.of(),
                            Runtime.getRuntime().availableProcessors(), target));
                }
                stats = proxy.stats();
            }
            if (!cluster.awaitQuiescent(LoadRun.QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the replicas did not apply every ordered batch within "
                        + LoadRun.QUIESCE_SECONDS + " s of the clients stopping");
            }
            return new LoadReport(o, rc, result, stats, cluster.digests(), Runtime.getRuntime().availableProcessors(), target);
        }
    }

    /** The store replicas that stopped serving and the PBFT replicas that fail-stopped; empty if none. */
    static String silent(EmbeddedPbftCluster cluster) {
        StringBuilder b = new StringBuilder(LoadRun.silentReplicas(cluster.replicas()));
        for (int i = 0; i < cluster.replicas().size(); i++) {
            int id = i;
            cluster.pbft().node(i).failure().ifPresent(f -> b.append(b.length() == 0 ? "" : ", ").append("PBFT replica ")
                    .append(id).append(" (fail-stopped: ").append(f).append(')'));
        }
        return b.toString();
    }
}
