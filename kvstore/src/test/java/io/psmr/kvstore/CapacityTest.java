package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.LocalSequencer;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.GraphKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A store filled past its capacity by many clients at once: every replica refuses the same writes
 * FULL, answers exactly as sequential execution does, and ends with the same digest; and the store
 * never holds more than its capacity.
 */
class CapacityTest {

    private static final StoreCapacity CAPACITY = new StoreCapacity(50, 2_000);

    @Test
    void replicasRefuseTheSameWritesWhenTheStoreIsFull() throws Exception {
        long seed = Long.getLong("psmr.seed", 20261123L); // re-run with -Dpsmr.seed=SEED
        ConflictDetection detection = ConflictDetection.bitmap(4_096);
        ReplicaConfig config = ReplicaConfig.builder().detection(detection).graph(GraphKind.INDEXED).workers(3)
                .maxPending(32).capacity(CAPACITY)
                .store(StoreConfig.defaults().forCapacity(CAPACITY, 8)).build();
        int proxies = 4;
        int clientsPerProxy = 8;
        try (EmbeddedCluster c = EmbeddedCluster.start(3, config,
                LocalSequencer.builder().retainedInstances(64).maxValueBytes(config.limits().maxBatchBytes()))) {
            ReplyCollector replies = new ReplyCollector();
            ReplicaConfig oracleConfig = config.toBuilder().replicaId(99).sequential(true).store(StoreConfig.heap()).build();
            try (Replica oracle = Replica.start(oracleConfig, c.broadcast(), c.router())) {
                assertEquals(1, c.broadcast().propose(Workload.openSessions(100 * proxies + clientsPerProxy, detection)).get());
                List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
                List<Thread> threads = new ArrayList<>();
                for (int p = 1; p <= proxies; p++) {
                    long proxy = p;
                    c.router().register(proxy, replies);
                    threads.add(new Thread(() -> {
                        try {
                            fill(c.broadcast(), proxy, seed + proxy, clientsPerProxy, detection);
                        } catch (Throwable e) {
                            errors.add(e);
                        }
                    }, "filler-" + p));
                }
                threads.forEach(Thread::start);
                for (Thread t : threads) {
                    t.join();
                }
                assertTrue(errors.isEmpty(), () -> "seed " + seed + ": " + errors);
                long last = c.broadcast().lastInstance();
                assertTrue(c.awaitApplied(last, 60, TimeUnit.SECONDS), "seed " + seed);
                assertTrue(oracle.awaitApplied(last, 60, TimeUnit.SECONDS), "seed " + seed);

                Map<java.util.List<Long>, KvResult> expected = replies.of(99);
                long full = expected.values().stream().filter(r -> r.status() == KvStatus.FULL).count();
                assertTrue(full > 100, "the load must run into the capacity, seed " + seed + ": " + full + " FULL");
                for (int r = 1; r <= 3; r++) {
                    Map<java.util.List<Long>, KvResult> got = replies.of(r);
                    assertEquals(expected.size(), got.size(), "replica " + r + " reply count, seed " + seed);
                    for (Map.Entry<java.util.List<Long>, KvResult> e : expected.entrySet()) {
                        assertEquals(e.getValue(), got.get(e.getKey()), "replica " + r + " answers (proxy, batch, index) "
                                + e.getKey() + " differently from sequential execution, seed " + seed);
                    }
                    Replica replica = c.replicas().get(r - 1);
                    assertEquals(full, replica.stats().commandsFull(), "replica " + r + ", seed " + seed);
                    assertTrue(replica.store().size() <= CAPACITY.maxEntries(), "replica " + r + " holds "
                            + replica.store().size() + " entries");
                    long[] bytes = new long[1];
                    replica.store().forEach((k, v) -> bytes[0] += k.length + v.length);
                    assertTrue(bytes[0] <= CAPACITY.maxBytes(), "replica " + r + " holds " + bytes[0] + " bytes");
                    assertTrue(replica.isServing(), "replica " + r + " stopped: " + replica.failure());
                }
                List<Long> digests = new ArrayList<>(c.digests());
                digests.add(oracle.digest());
                assertEquals(1, digests.stream().distinct().count(), "digests differ, seed " + seed + ": " + digests);
                // Every read agrees: each key's value is the same on every replica.
                for (int k = 0; k < 400; k++) {
                    byte[] v = oracle.store().get(Workload.key(k));
                    for (Replica r : c.replicas()) {
                        assertArrayEquals(v, r.store().get(Workload.key(k)), "key " + k + " on replica " + r.id());
                    }
                }
                KvResult sample = expected.values().stream().filter(r -> r.status() == KvStatus.FULL).findFirst()
                        .orElseThrow();
                assertTrue(sample.detail().startsWith("store full: ") && sample.detail().contains(
                        "the capacity is 50 entries and 2000 bytes"), sample.detail());
            }
        }
    }

    /** One proxy: batches of creates, multi-puts, updates and some deletes from its clients, on 400 keys. */
    private static void fill(LocalSequencer seq, long proxy, long seed, int clients, ConflictDetection detection)
            throws Exception {
        Random random = new Random(seed);
        Workload w = new Workload(seed, 400, 40);
        long[] nextSeq = new long[clients];
        for (long batchId = 1; batchId <= 80; batchId++) {
            int n = 1 + random.nextInt(12);
            List<KvCommand> commands = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int client = random.nextInt(clients);
                commands.add(w.command(Workload.session(1, proxy * 100 + client), ++nextSeq[client]));
            }
            seq.propose(Workload.encode(proxy, batchId, commands, detection)).get();
        }
    }
}
