package io.psmr.kvstore.mlbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.SessionTable;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.kvstore.StoreConfig;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.DeliveryListener;
import io.psmr.ordering.LocalSequencer;
import io.psmr.ordering.Subscription;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.SummaryBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Four MLBFT store replicas over two instances (one {@link LocalSequencer} per partition, which every replica learns
 * in the same order, as PBFT guarantees), with cross-border requests that the two instances order oppositely and each
 * replica's deliveries held back differently: every replica resolves the same deadlocks the same way, and answers and
 * ends alike. Seeded: re-run a failure with {@code -Dpsmr.seed=S}.
 */
class MlbftReplicaTest {

    private static final ConflictDetection DETECTION = ConflictDetection.bitmap(1024);
    private static final PartitionMap MAP = new PartitionMap(2);
    private static final long PROXY = 7;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void oppositeCrossBorderOrdersResolveIdenticallyOnEveryReplica() throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime());
        Random random = new Random(seed);
        String context = "seed " + seed + " (re-run with -Dpsmr.seed=" + seed + ")";
        List<LocalSequencer> instances = List.of(sequencer(), sequencer());
        long[] delivered = new long[2];
        try {
            // Batch 1 opens two sessions: it is of both partitions (an OPEN_SESSION has no key), first in both orders.
            propose(instances, List.of(0, 1), 1, List.of(KvCommand.openSession(1, 1), KvCommand.openSession(2, 1)), delivered);
            int[] both = {0, 1};
            int exec = PartitionMap.execPartition(both, PROXY, 1);
            long clock = 1L * MAP.partitions() + exec; // instance 1 of the exec partition, interleaved
            long[] sessions = {SessionTable.sessionId(clock, 0), SessionTable.sessionId(clock, 1)};

            // Pairs of MULTI_PUTs over k<2i> (partition 0) and k<2i+1> (partition 1), ordered oppositely by the instances,
            // with simple writes between them.
            int pairs = 2 + random.nextInt(12);
            long[] seqs = {1, 1};
            List<Long> order0 = new ArrayList<>();
            List<Long> order1 = new ArrayList<>();
            Map<Long, byte[]> batches = new ConcurrentHashMap<>();
            long batchId = 1;
            long[] lastPairSecond = new long[1];
            for (int i = 0; i < pairs; i++) {
                for (int c = 0; c < 2; c++) {
                    long id = ++batchId;
                    byte[][] keys = {key(2 * (i % 3)), key(2 * (i % 3) + 1)};
                    byte[][] values = {value("b" + id), value("b" + id)};
                    batches.put(id, batch(id, List.of(KvCommand.multiPut(sessions[c], ++seqs[c], keys, values))));
                }
                order0.add(batchId - 1);
                order0.add(batchId);
                lastPairSecond[0] = batchId;
                order1.add(batchId);
                order1.add(batchId - 1);
                if (random.nextBoolean()) {
                    long id = ++batchId;
                    int p = random.nextInt(2);
                    batches.put(id, batch(id, List.of(KvCommand.multiPut(sessions[0], ++seqs[0], new byte[][] {key(100 + p)},
                            new byte[][] {value("s" + id)}))));
                    (p == 0 ? order0 : order1).add(id);
                }
            }
            for (long id : order0) {
                delivered[0] = instances.get(0).propose(new MlbftEnvelope(id, batches.get(id)).encode()).get();
            }
            for (long id : order1) {
                delivered[1] = instances.get(1).propose(new MlbftEnvelope(id, batches.get(id)).encode()).get();
            }

            // Replica 1 learns both instances freely, replica 2 partition 0 entirely first, replica 3 partition 1 first,
            // replica 4 in alternation.
            Replies replies = new Replies();
            List<MlbftReplica> replicas = new ArrayList<>();
            try {
                replicas.add(MlbftReplica.start(config(1), MAP, instances, replies::add));
                replicas.add(MlbftReplica.start(config(2), MAP, held(instances, 1, delivered[0]), replies::add));
                replicas.add(MlbftReplica.start(config(3), MAP, held(instances, 0, delivered[1]), replies::add));
                replicas.add(MlbftReplica.start(config(4), MAP, alternating(instances), replies::add));
                for (MlbftReplica r : replicas) {
                    assertTrue(r.awaitApplied(delivered, 30, TimeUnit.SECONDS), "replica " + r.id() + " ran everything; "
                            + r + "; " + context);
                }
                MlbftStats first = replicas.get(0).mlbftStats();
                assertEquals(pairs, first.deadlocks(), "every opposite pair deadlocks once: " + first + "; " + context);
                assertEquals(1 + 2L * pairs, first.crossBorder(), "the pairs and the OPEN_SESSION batch; " + first);
                for (MlbftReplica r : replicas) {
                    MlbftStats s = r.mlbftStats();
                    assertEquals(first.deadlocks(), s.deadlocks(), "replica " + r.id() + ": " + s + "; " + context);
                    assertEquals(first.resolutions(), s.resolutions(), "replica " + r.id() + " resolved otherwise; " + context);
                    assertEquals(replicas.get(0).digest(), r.digest(), "replica " + r.id() + "'s digest; " + context);
                    assertTrue(r.failure().isEmpty(), r.failure().toString());
                }
                replies.assertAgree(replicas.size(), 1 + batchId - 1, context);
                // The smaller id of each pair moved ahead in partition 1, so the larger one wrote last in both partitions.
                int lastKeys = 2 * ((pairs - 1) % 3);
                String expected = "b" + lastPairSecond[0];
                for (MlbftReplica r : replicas) {
                    for (int k : new int[] {lastKeys, lastKeys + 1}) {
                        assertEquals(expected, new String(r.store().get(key(k)), StandardCharsets.US_ASCII),
                                "replica " + r.id() + ", key k" + k + "; " + context);
                    }
                }
            } finally {
                replicas.forEach(MlbftReplica::close);
            }
        } finally {
            instances.forEach(LocalSequencer::close);
        }
    }

    @Test
    void aBoundedStoreCapacityIsRefusedNamingWhy() {
        LocalSequencer a = sequencer();
        LocalSequencer b = sequencer();
        try {
            ReplicaConfig bounded = config(1).toBuilder().capacity(StoreCapacity.of(100, 16)).build();
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> MlbftReplica.start(bounded, MAP, List.of(a, b), reply -> { }));
            assertTrue(e.getMessage().startsWith("an MLBFT replica takes no store capacity"), e.getMessage());
            IllegalArgumentException one = assertThrows(IllegalArgumentException.class,
                    () -> MlbftReplica.start(config(1), MAP, List.of(a), reply -> { }));
            assertEquals("MLBFT needs one ordering instance per partition: 2 partitions, 1 instances", one.getMessage());
        } finally {
            a.close();
            b.close();
        }
    }

    /** Every replica's answer to every command, by (batch, index). */
    private static final class Replies {
        final Map<Integer, Map<List<Long>, KvResult>> byReplica = new ConcurrentHashMap<>();

        void add(KvReply r) {
            byReplica.computeIfAbsent(r.replicaId(), k -> new ConcurrentHashMap<>())
                    .put(List.of(r.batchId(), (long) r.index()), r.result());
        }

        void assertAgree(int replicas, long batches, String context) {
            assertEquals(replicas, byReplica.size(), "every replica answered; " + context);
            Map<List<Long>, KvResult> first = byReplica.get(1);
            for (Map.Entry<Integer, Map<List<Long>, KvResult>> e : byReplica.entrySet()) {
                assertEquals(first.keySet(), e.getValue().keySet(), "replica " + e.getKey() + " answered other commands; "
                        + context);
                for (Map.Entry<List<Long>, KvResult> a : first.entrySet()) {
                    KvResult mine = e.getValue().get(a.getKey());
                    assertEquals(a.getValue().status(), mine.status(), "replica " + e.getKey() + " at " + a.getKey() + "; "
                            + context);
                    assertArrayEquals(a.getValue().value(), mine.value(), "replica " + e.getKey() + " at " + a.getKey());
                }
            }
            assertTrue(first.values().stream().allMatch(r -> r.status() == KvStatus.OK), first + "; " + context);
            assertEquals(batches, first.keySet().stream().map(k -> k.get(0)).distinct().count(), context);
        }
    }

    private static LocalSequencer sequencer() {
        LocalSequencer s = LocalSequencer.builder().retainedInstances(4096).maxValueBytes(1 << 20).build();
        s.start();
        return s;
    }

    private static ReplicaConfig config(int id) {
        return ReplicaConfig.builder().replicaId(id).detection(DETECTION).store(StoreConfig.heap()).build();
    }

    private static void propose(List<LocalSequencer> instances, List<Integer> partitions, long batchId,
                                List<KvCommand> commands, long[] delivered) throws Exception {
        byte[] envelope = new MlbftEnvelope(batchId, batch(batchId, commands)).encode();
        for (int p : partitions) {
            delivered[p] = instances.get(p).propose(envelope).get();
        }
    }

    private static byte[] batch(long batchId, List<KvCommand> commands) {
        return KvCodec.encodeBatch(PROXY, batchId, commands, SummaryBuilder.summarize(DETECTION, commands));
    }

    private static byte[] key(int n) {
        return ("k" + n).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] value(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The instances, partition {@code held}'s deliveries waiting until the other partition delivered {@code until}. */
    private static List<AtomicBroadcast> held(List<LocalSequencer> instances, int held, long until) {
        CountDownLatch open = new CountDownLatch(1);
        AtomicLong other = new AtomicLong();
        List<AtomicBroadcast> out = new ArrayList<>();
        for (int p = 0; p < instances.size(); p++) {
            boolean waits = p == held;
            out.add(new Gated(instances.get(p), () -> {
                if (waits) {
                    open.await(20, TimeUnit.SECONDS);
                }
            }, () -> {
                if (!waits && other.incrementAndGet() == until) {
                    open.countDown();
                }
            }));
        }
        return out;
    }

    /** The instances, their deliveries taking turns, one of each at a time while both have some. */
    private static List<AtomicBroadcast> alternating(List<LocalSequencer> instances) {
        java.util.concurrent.Semaphore[] turns = {new java.util.concurrent.Semaphore(1), new java.util.concurrent.Semaphore(0)};
        List<AtomicBroadcast> out = new ArrayList<>();
        for (int p = 0; p < instances.size(); p++) {
            int me = p;
            out.add(new Gated(instances.get(p), () -> turns[me].tryAcquire(50, TimeUnit.MILLISECONDS),
                    () -> turns[1 - me].release()));
        }
        return out;
    }

    /** A broadcast whose subscriptions run {@code before} and {@code after} around each delivery. */
    private record Gated(AtomicBroadcast delegate, Step before, Step after) implements AtomicBroadcast {
        interface Step {
            void run() throws InterruptedException;
        }

        @Override
        public Subscription subscribe(long fromInstance, DeliveryListener listener) {
            return delegate.subscribe(fromInstance, (instance, value) -> {
                before.run();
                listener.deliver(instance, value);
                after.run();
            });
        }

        @Override
        public void start() {
            delegate.start();
        }

        @Override
        public CompletableFuture<Long> propose(byte[] value) {
            return delegate.propose(value);
        }

        @Override
        public long lastInstance() {
            return delegate.lastInstance();
        }

        @Override
        public long firstRetainedInstance() {
            return delegate.firstRetainedInstance();
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

}
