package io.psmr.bench.load;

import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ratis.EmbeddedRatisCluster;
import io.psmr.kvstore.ratis.RatisReplica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The key-value store with Apache Ratis as the ordering engine and psmr as its execution layer:
 * 3 Ratis peers on loopback in one JVM ({@link EmbeddedRatisCluster}), each a {@link RatisReplica}; one
 * {@link ClientProxy} proposing through the Raft client, whose replies come back as the leader's
 * Ratis replies. Closed-loop workloads with conflicts (16 keys, hot-key batches) and MULTI_PUTs,
 * bounded by operations. Randomised by {@code -Dpsmr.seed}, printed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RatisEndToEndTest {

    private static final int CLIENTS = 16;
    private static final int KEYS = 16;
    private static final long WAIT_S = 30;

    @TempDir
    Path dir;

    private static long seed(String test) {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        System.out.println("RatisEndToEndTest." + test + " seed " + seed);
        return seed;
    }

    private static WorkloadSpec spec(int ops, long seed) {
        return new WorkloadSpec(CLIENTS, KEYS, 0.3, 0.15, 3, 16, Duration.ofSeconds(60), ops, seed);
    }

    private static LoadOptions options(WorkloadSpec spec) {
        return new LoadOptions(3, SchedulerMode.BITMAP_INDEXED, 2, 32, 4, Duration.ZERO, 20, Duration.ofSeconds(5), spec);
    }

    @Test
    void replicasOverRatisAgreeAndTheHistoryIsLinearizable() throws Exception {
        long seed = seed("agree");
        String context = "seed " + seed;
        WorkloadSpec spec = spec(100, seed);
        LoadOptions options = options(spec);
        ReplicaConfig rc = LoadRun.replicaConfig(options);
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        try (EmbeddedRatisCluster cluster = EmbeddedRatisCluster.start(3, rc, dir, 0)) {
            assertTrue(cluster.awaitLeader(WAIT_S, TimeUnit.SECONDS) > 0, "a leader is elected, " + context);
            LoadResult result;
            try (ClientProxy proxy = startProxy(options, rc, cluster)) {
                result = LoadGenerator.run(proxy, spec, history::add);
                assertEquals(0, proxy.stats().timedOut(), context);
            }
            assertEquals((long) CLIENTS * 100, result.acknowledged(), "every operation answered, " + context);
            assertTrue(history.stream().anyMatch(o -> o.op() == KvOp.MULTI_PUT && o.status() == KvStatus.OK), context);
            assertTrue(cluster.awaitQuiescent(WAIT_S, TimeUnit.SECONDS), "replicas applied everything, " + context);
            checkReplicasAgreeAndLinearizable(cluster.replicas(), history, 3, context);
        }
    }

    @Test
    void killingTheLeaderUnderLoadLosesNothingAcknowledged() throws Exception {
        long seed = seed("killLeader");
        String context = "seed " + seed;
        int ops = 120;
        WorkloadSpec spec = spec(ops, seed);
        LoadOptions options = options(spec);
        ReplicaConfig rc = LoadRun.replicaConfig(options);
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        try (EmbeddedRatisCluster cluster = EmbeddedRatisCluster.start(3, rc, dir, 0)) {
            int leader = cluster.awaitLeader(WAIT_S, TimeUnit.SECONDS);
            assertTrue(leader > 0, "a leader is elected, " + context);
            AtomicInteger done = new AtomicInteger();
            AtomicReference<Thread> killer = new AtomicReference<>();
            LoadResult result;
            try (ClientProxy proxy = startProxy(options, rc, cluster)) {
                result = LoadGenerator.run(proxy, spec, op -> {
                    history.add(op);
                    if (done.incrementAndGet() == CLIENTS * ops / 3) {
                        Thread t = new Thread(() -> cluster.stop(leader), "stop-leader");
                        killer.set(t);
                        t.start();
                    }
                });
                assertEquals(0, proxy.stats().timedOut(), context);
            }
            killer.get().join(TimeUnit.SECONDS.toMillis(WAIT_S));
            assertEquals(null, cluster.replica(leader), "the old leader is stopped, " + context);
            int next = cluster.awaitLeader(WAIT_S, TimeUnit.SECONDS);
            assertTrue(next > 0 && next != leader, "another peer leads, " + context);
            assertEquals((long) CLIENTS * ops, result.acknowledged(), "every operation answered, " + context);
            assertTrue(cluster.awaitQuiescent(WAIT_S, TimeUnit.SECONDS), "replicas applied everything, " + context);
            checkReplicasAgreeAndLinearizable(cluster.replicas(), history, 2, context);

            // The old leader comes back from its log and catches up to the same state.
            cluster.restart(leader);
            assertTrue(cluster.awaitQuiescent(WAIT_S, TimeUnit.SECONDS), "the old leader caught up, " + context);
            assertEquals(cluster.replica(next).digest(), cluster.replica(leader).digest(), "restarted leader's digest, " + context);
        }
    }

    @Test
    void aFollowerRestartedFromASnapshotCatchesUp() throws Exception {
        long seed = seed("snapshot");
        String context = "seed " + seed;
        int ops = 40;
        WorkloadSpec first = spec(ops, seed);
        LoadOptions options = options(first);
        // Small batches make small log segments, so that the leader's purge after its snapshot frees
        // the log the stopped follower would need: it must then install the leader's snapshot.
        ReplicaConfig rc = LoadRun.replicaConfig(options).toBuilder()
                .limits(KvLimits.defaults().withMaxBatchBytes(8 << 10)).build();
        List<OpRecord> history = Collections.synchronizedList(new ArrayList<>());
        try (EmbeddedRatisCluster cluster = EmbeddedRatisCluster.start(3, rc, dir, 0)) {
            int leader = cluster.awaitLeader(WAIT_S, TimeUnit.SECONDS);
            assertTrue(leader > 0, "a leader is elected, " + context);
            int follower = leader == 1 ? 2 : 1;
            try (ClientProxy proxy = startProxy(options, rc, cluster)) {
                LoadGenerator.run(proxy, first, history::add);
                assertTrue(cluster.awaitQuiescent(WAIT_S, TimeUnit.SECONDS), context);

                // The follower snapshots and stops; the others go on, snapshot and purge their logs past it.
                long own = cluster.snapshot(follower, 10_000);
                assertTrue(own > 0, "follower snapshot index, " + context);
                cluster.stop(follower);
                LoadGenerator.run(proxy, spec(ops, seed + 1), history::add);
                // Every running peer snapshots and purges, so that whichever leads when the follower returns
                // (its return may cause an election) no longer has the entries after the follower's snapshot.
                long snap = Long.MAX_VALUE;
                for (int id = 1; id <= 3; id++) {
                    if (id != follower) {
                        long s = cluster.snapshot(id, 10_000);
                        snap = Math.min(snap, s);
                        long start = cluster.logStartIndex(id);
                        assertTrue(start > own + 1, "peer " + id + " purged its log to " + start
                                + ", past the follower's snapshot " + own + ", " + context);
                    }
                }
                assertTrue(snap > own, "snapshot " + snap + " after the follower's " + own + ", " + context);
                LoadGenerator.run(proxy, spec(ops, seed + 2), history::add);
                cluster.restart(follower);
                assertTrue(cluster.awaitQuiescent(WAIT_S, TimeUnit.SECONDS), "the follower caught up, " + context);
                RatisReplica back = cluster.replica(follower);
                // Its own snapshot on restart, then the leader's: its own log ends before the leader's begins.
                assertEquals(2, back.snapshotsLoaded(), "snapshots the follower loaded, " + context);
                assertTrue(back.appliedIndex() > snap, context);
                assertEquals(0, proxy.stats().timedOut(), context);
            }
            assertEquals((long) CLIENTS * ops * 3, history.size(), "every operation answered, " + context);
            checkReplicasAgreeAndLinearizable(cluster.replicas(), history, 3, context);
        }
    }

    /** Equal digests and stores on every replica; acknowledged last writes visible; per-key linearizable. */
    /** A proxy with the run's settings and hot-key batches, on the cluster's Raft client. */
    private static ClientProxy startProxy(LoadOptions options, ReplicaConfig rc, EmbeddedRatisCluster cluster) {
        ProxyConfig pc = LoadRun.proxyConfig(options, rc);
        return ClientProxy.start(pc, cluster.broadcast(), cluster.router(), LoadRun.hotKeys(options, pc));
    }

    private static void checkReplicasAgreeAndLinearizable(List<RatisReplica> replicas, List<OpRecord> history,
                                                          int expectedReplicas, String context) {
        assertEquals(expectedReplicas, replicas.size(), context);
        List<Map<String, String>> stores = new ArrayList<>();
        for (RatisReplica r : replicas) {
            assertEquals(replicas.get(0).digest(), r.digest(), "digest of replica " + r.id() + " differs, " + context);
            Map<String, String> m = new HashMap<>();
            r.store().forEach((k, v) -> m.put(EndToEndTest.text(k), EndToEndTest.text(v)));
            stores.add(m);
        }
        for (Map<String, String> s : stores) {
            assertEquals(stores.get(0), s, "replica stores differ, " + context);
        }
        assertNotEquals(0, stores.get(0).size(), context);
        Map<String, String> store = new HashMap<>(stores.get(0));
        store.keySet().removeIf(k -> !k.startsWith("k")); // the proxy's hot-key writes are not client operations
        assertTrue(EndToEndTest.checkLastWritesVisible(history, store, context) > 0, context);
        LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(history, store);
        assertTrue(v.linearizable(), () -> context + ": " + String.join("\n", v.violations()));
        assertEquals(KEYS, v.keys(), context);
    }
}
