package io.psmr.bench.load;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.ratis.EmbeddedRatisCluster;
import io.psmr.kvstore.ratis.RatisDurability;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.proxy.ProxyStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import io.psmr.ordering.OrderingProtocol;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * {@link LoadRun} over Apache Ratis: a {@link EmbeddedRatisCluster} of {@link LoadOptions#replicas()} peers
 * on loopback, the proxy proposing through the Raft client. Ratis logs and snapshots go to a
 * temporary directory, removed at the end; a snapshot every {@value #SNAPSHOT_EVERY} entries keeps
 * the log, and so the disk, bounded in long runs.
 */
final class RatisLoadRun implements EmbeddedOrdering {

    static final RatisLoadRun RUNNER = new RatisLoadRun();

    /** Entries between automatic snapshots (after each, the log is purged up to it). */
    static final long SNAPSHOT_EVERY = 10_000;

    private RatisLoadRun() {
    }

    /** Replicas inside the load process on embedded Ratis peers that store their log with {@code durability}. */
    static LoadTarget target(RatisDurability durability) {
        return new LoadTarget(RUNNER.protocol(), true, null, durability);
    }

    @Override
    public OrderingProtocol protocol() {
        return OrderingProtocol.RATIS;
    }

    @Override
    public boolean tradesDurability() {
        return true;
    }

    @Override
    public List<String> settingFlags() {
        return List.of("--ratis-durability");
    }

    @Override
    public String settingsName() {
        return "Ratis";
    }

    @Override
    public LoadTarget target(Settings settings) {
        return target(settings.ratisDurability());
    }

    @Override
    public String describeSettings(LoadTarget target) {
        return target.ratisDurability() == RatisDurability.SYNC ? ""
                : ", log " + target.ratisDurability().cliName() + " (not durable: docs/integration.md)";
    }

    @Override
    public void putSettings(LoadTarget target, ObjectNode report) {
        if (target.embedded()) {
            report.put("ratis_durability", target.ratisDurability().cliName());
        }
    }

    /**
     * Runs over peers that store their log with {@code target}'s durability; logs and snapshots live in a temporary
     * directory, removed afterwards; {@code started} and {@code inspect} are not called.
     *
     * @throws IllegalStateException also if no Ratis leader is elected in time
     */
    @Override
    public LoadReport run(LoadOptions o, LoadTarget target, HistorySink history, RunControls controls,
                          Consumer<EmbeddedCluster> started, Consumer<EmbeddedCluster> inspect) throws InterruptedException {
        return run(o, target.ratisDurability(), history, controls);
    }

    static LoadReport run(LoadOptions o, RatisDurability durability, HistorySink history, RunControls controls)
            throws InterruptedException {
        LoadTarget target = target(durability);
        ReplicaConfig rc = LoadRun.replicaConfig(o);
        ProxyConfig pc = LoadRun.proxyConfig(o, rc);
        Path dir;
        try {
            dir = Files.createTempDirectory("psmr-ratis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the Ratis logs: " + e.getMessage(), e);
        }
        try (EmbeddedRatisCluster cluster = EmbeddedRatisCluster.start(o.replicas(), rc, dir, SNAPSHOT_EVERY, durability)) {
            // Elect first, so that the measured run does not include the election.
            if (cluster.awaitLeader(LoadRun.QUIESCE_SECONDS, TimeUnit.SECONDS) == 0) {
                throw new IllegalStateException("no Ratis leader was elected within " + LoadRun.QUIESCE_SECONDS + " s");
            }
            LoadResult result;
            ProxyStats stats;
            try (ClientProxy proxy = ClientProxy.start(pc, cluster.broadcast(), cluster.router(), LoadRun.hotKeys(o, pc))) {
                try {
                    result = LoadGenerator.run(proxy, o.workload(), history, controls);
                } catch (LoadStalledException e) {
                    throw e.withReport(new LoadReport(o, rc, e.result(), proxy.stats(), List.of(),
                            Runtime.getRuntime().availableProcessors(), target));
                }
                stats = proxy.stats();
            }
            if (!cluster.awaitQuiescent(LoadRun.QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the replicas did not apply every committed entry within "
                        + LoadRun.QUIESCE_SECONDS + " s of the clients stopping");
            }
            List<Long> digests = cluster.digests();
            return new LoadReport(o, rc, result, stats, digests, Runtime.getRuntime().availableProcessors(),
                    target);
        } finally {
            deleteRecursively(dir);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Best effort: a temporary directory left behind is not worth failing a finished run.
        }
    }
}
