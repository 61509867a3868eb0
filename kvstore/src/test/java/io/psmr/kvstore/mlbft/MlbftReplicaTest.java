package io.psmr.kvstore.mlbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
    /** An in-memory Chronicle Map, as the other store tests size it. */
    private static final StoreConfig STORE = StoreConfig.defaults().sized(20_000, 8, 64);

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

            // Pairs of batches over k<2j> (partition 0) and k<2j+1> (partition 1), j = i mod 3, ordered oppositely by the
            // instances: a (the smaller id) reads k<2j> and b reads k<2j+1>, then each writes both keys; a read of the
            // other batch's write shows which ran first. After some pairs, a simple batch of one partition reads that
            // partition's key of the pair and writes a key of its own.
            int pairs = 2 + random.nextInt(12);
            long[] seqs = {1, 1};
            List<Long> order0 = new ArrayList<>();
            List<Long> order1 = new ArrayList<>();
            Map<Long, byte[]> batches = new ConcurrentHashMap<>();
            Map<List<Long>, String> expectedReads = new java.util.HashMap<>(); // (batch, index) -> value, null: NOT_FOUND
            long batchId = 1;
            long[] lastB = new long[3];
            long lastPairSecond = 0;
            for (int i = 0; i < pairs; i++) {
                int j = i % 3;
                long a = ++batchId;
                long b = ++batchId;
                for (int c = 0; c < 2; c++) {
                    long id = c == 0 ? a : b;
                    byte[][] keys = {key(2 * j), key(2 * j + 1)};
                    byte[][] values = {value("b" + id), value("b" + id)};
                    batches.put(id, batch(id, List.of(KvCommand.read(sessions[c], ++seqs[c], key(2 * j + c)),
                            KvCommand.multiPut(sessions[c], ++seqs[c], keys, values))));
                }
                // The deadlock moves a, the smaller id, ahead: a reads what the pair before it on these keys wrote last,
                // and b reads a's write.
                expectedReads.put(List.of(a, 0L), lastB[j] == 0 ? null : "b" + lastB[j]);
                expectedReads.put(List.of(b, 0L), "b" + a);
                lastB[j] = b;
                lastPairSecond = b;
                order0.add(a);
                order0.add(b);
                order1.add(b);
                order1.add(a);
                if (random.nextBoolean()) {
                    long id = ++batchId;
                    int p = random.nextInt(2);
                    batches.put(id, batch(id, List.of(KvCommand.read(sessions[0], ++seqs[0], key(2 * j + p)),
                            KvCommand.multiPut(sessions[0], ++seqs[0], new byte[][] {key(100 + p)},
                                    new byte[][] {value("s" + id)}))));
                    expectedReads.put(List.of(id, 0L), "b" + b);
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
                replicas.add(MlbftReplica.start(config(2), MAP, held(instances, 1, delivered), replies::add));
                replicas.add(MlbftReplica.start(config(3), MAP, held(instances, 0, delivered), replies::add));
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
                replies.assertAgree(replicas.size(), batchId, expectedReads, context);
                // The smaller id of each pair moved ahead in partition 1, so the larger one wrote last in both partitions.
                int lastKeys = 2 * ((pairs - 1) % 3);
                String expected = "b" + lastPairSecond;
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

    /**
     * Three partitions, three instances: per round, A of {0, 1}, B of {1, 2} and C of {0, 2}, with ids A < B < C, ordered
     * A, C by instance 0, B, A by instance 1 and C, B by instance 2, so that A heads partition 0 waiting for B, B heads 1
     * waiting for C, and C heads 2 waiting for A: one deadlock of the three queues per round, which moves A; then C, then
     * B run. Each replica holds one instance back until the others delivered everything (or none).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aThreePartitionCycleResolvesIdenticallyOnEveryReplica() throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime());
        Random random = new Random(seed);
        String context = "seed " + seed + " (re-run with -Dpsmr.seed=" + seed + ")";
        PartitionMap map = new PartitionMap(3);
        List<LocalSequencer> instances = List.of(sequencer(), sequencer(), sequencer());
        long[] delivered = new long[3];
        try {
            propose(instances, List.of(0, 1, 2), 1, List.of(KvCommand.openSession(1, 1), KvCommand.openSession(2, 1),
                    KvCommand.openSession(3, 1)), delivered);
            long clock = 1L * map.partitions() + PartitionMap.execPartition(new int[] {0, 1, 2}, PROXY, 1);
            long[] sessions = {SessionTable.sessionId(clock, 0), SessionTable.sessionId(clock, 1),
                    SessionTable.sessionId(clock, 2)};
            long[] seqs = {1, 1, 1};
            int rounds = 2 + random.nextInt(8);
            List<List<Long>> orders = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
            Map<Long, byte[]> batches = new java.util.HashMap<>();
            Map<List<Long>, String> expectedReads = new java.util.HashMap<>();
            // Under 3 partitions k0, k1, k2 are in partitions 0, 1, 2. A writes k0, k1; B k1, k2; C k0, k2. A reads k1
            // (B's of the round before), C reads k0 (A's), B reads k2 (C's): the reads show the order A, C, B.
            int[][] writes = {{0, 1}, {1, 2}, {0, 2}};
            int[] reads = {1, 2, 0};
            long batchId = 1;
            long lastB = 0;
            long lastC = 0;
            for (int i = 0; i < rounds; i++) {
                long[] ids = {++batchId, ++batchId, ++batchId}; // A, B, C
                for (int role = 0; role < 3; role++) {
                    long id = ids[role];
                    batches.put(id, batch(id, List.of(KvCommand.read(sessions[role], ++seqs[role], key(reads[role])),
                            KvCommand.multiPut(sessions[role], ++seqs[role],
                                    new byte[][] {key(writes[role][0]), key(writes[role][1])},
                                    new byte[][] {value("b" + id), value("b" + id)}))));
                }
                expectedReads.put(List.of(ids[0], 0L), lastB == 0 ? null : "b" + lastB);
                expectedReads.put(List.of(ids[2], 0L), "b" + ids[0]);
                expectedReads.put(List.of(ids[1], 0L), "b" + ids[2]);
                lastB = ids[1];
                lastC = ids[2];
                orders.get(0).addAll(List.of(ids[0], ids[2]));
                orders.get(1).addAll(List.of(ids[1], ids[0]));
                orders.get(2).addAll(List.of(ids[2], ids[1]));
            }
            for (int p = 0; p < 3; p++) {
                for (long id : orders.get(p)) {
                    delivered[p] = instances.get(p).propose(new MlbftEnvelope(id, batches.get(id)).encode()).get();
                }
            }
            Replies replies = new Replies();
            List<MlbftReplica> replicas = new ArrayList<>();
            try {
                replicas.add(MlbftReplica.start(config(1), map, instances, replies::add));
                for (int held = 0; held < 3; held++) {
                    replicas.add(MlbftReplica.start(config(2 + held), map, held(instances, held, delivered), replies::add));
                }
                for (MlbftReplica r : replicas) {
                    assertTrue(r.awaitApplied(delivered, 30, TimeUnit.SECONDS), "replica " + r.id() + " ran everything; "
                            + r + "; " + context);
                }
                MlbftStats first = replicas.get(0).mlbftStats();
                assertEquals(rounds, first.deadlocks(), "one deadlock per round: " + first + "; " + context);
                assertEquals(1 + 3L * rounds, first.crossBorder(), first + "; " + context);
                for (MlbftReplica r : replicas) {
                    MlbftStats s = r.mlbftStats();
                    assertEquals(first.deadlocks(), s.deadlocks(), "replica " + r.id() + ": " + s + "; " + context);
                    assertEquals(first.resolutions(), s.resolutions(), "replica " + r.id() + " resolved otherwise; " + context);
                    assertEquals(first.crossBorder(), s.crossBorder(), "replica " + r.id() + ": " + s + "; " + context);
                    assertEquals(replicas.get(0).digest(), r.digest(), "replica " + r.id() + "'s digest; " + context);
                    assertTrue(r.failure().isEmpty(), r.failure().toString());
                    assertEquals("b" + lastC, new String(r.store().get(key(0)), StandardCharsets.US_ASCII), context);
                    assertEquals("b" + lastB, new String(r.store().get(key(1)), StandardCharsets.US_ASCII), context);
                    assertEquals("b" + lastB, new String(r.store().get(key(2)), StandardCharsets.US_ASCII), context);
                }
                replies.assertAgree(replicas.size(), batchId, expectedReads, context);
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

    /** Every replica's answer to every command, by (proxy, batch, index). */
    private static final class Replies {
        final Map<Integer, Map<List<Long>, KvResult>> byReplica = new ConcurrentHashMap<>();

        void add(KvReply r) {
            KvResult old = byReplica.computeIfAbsent(r.replicaId(), k -> new ConcurrentHashMap<>())
                    .put(List.of(r.proxyId(), r.batchId(), (long) r.index()), r.result());
            assertNull(old, "replica " + r.replicaId() + " answered " + r + " twice");
        }

        /**
         * Every replica answered the same commands of {@code batches} batches with the same results; every command is OK
         * but the reads of {@code reads} (batch, index), which read what it says (null: NOT_FOUND).
         */
        void assertAgree(int replicas, long batches, Map<List<Long>, String> reads, String context) {
            assertEquals(replicas, byReplica.size(), "every replica answered; " + context);
            Map<List<Long>, KvResult> first = byReplica.get(1);
            for (Map.Entry<Integer, Map<List<Long>, KvResult>> e : byReplica.entrySet()) {
                assertEquals(first.keySet(), e.getValue().keySet(), "replica " + e.getKey() + " answered other commands; "
                        + context);
                for (Map.Entry<List<Long>, KvResult> a : first.entrySet()) {
                    KvResult mine = e.getValue().get(a.getKey());
                    assertEquals(a.getValue().status(), mine.status(), "replica " + e.getKey() + " at " + a.getKey() + "; "
                            + context);
                    assertArrayEquals(a.getValue().value(), mine.value(), "replica " + e.getKey() + " at " + a.getKey()
                            + "; " + context);
                }
            }
            for (Map.Entry<List<Long>, KvResult> a : first.entrySet()) {
                List<Long> at = List.of(a.getKey().get(1), a.getKey().get(2));
                assertEquals(PROXY, a.getKey().get(0));
                if (reads.containsKey(at)) {
                    String want = reads.get(at);
                    assertEquals(want == null ? KvStatus.NOT_FOUND : KvStatus.OK, a.getValue().status(), "the read at "
                            + at + "; " + context);
                    if (want != null) {
                        assertEquals(want, new String(a.getValue().value(), StandardCharsets.US_ASCII), "the read at "
                                + at + "; " + context);
                    }
                } else {
                    assertEquals(KvStatus.OK, a.getValue().status(), "at " + at + ": " + a.getValue() + "; " + context);
                }
            }
            assertTrue(first.keySet().containsAll(reads.keySet().stream().map(k -> List.of(PROXY, k.get(0), k.get(1)))
                    .toList()), "every read was answered; " + context);
            assertEquals(batches, first.keySet().stream().map(k -> k.get(1)).distinct().count(), context);
        }
    }

    private static LocalSequencer sequencer() {
        LocalSequencer s = LocalSequencer.builder().retainedInstances(4096).maxValueBytes(1 << 20).build();
        s.start();
        return s;
    }

    private static ReplicaConfig config(int id) {
        return ReplicaConfig.builder().replicaId(id).detection(DETECTION).store(STORE).build();
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

    /**
     * The instances, partition {@code held}'s deliveries waiting until every other partition p delivered up to
     * {@code last[p]}.
     */
    private static List<AtomicBroadcast> held(List<LocalSequencer> instances, int held, long[] last) {
        CountDownLatch open = new CountDownLatch(instances.size() - 1);
        java.util.concurrent.atomic.AtomicLongArray delivered = new java.util.concurrent.atomic.AtomicLongArray(instances.size());
        List<AtomicBroadcast> out = new ArrayList<>();
        for (int p = 0; p < instances.size(); p++) {
            int partition = p;
            boolean waits = p == held;
            out.add(new Gated(instances.get(p), () -> {
                if (waits) {
                    open.await(20, TimeUnit.SECONDS);
                }
            }, () -> {
                if (!waits && delivered.incrementAndGet(partition) == last[partition]) {
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
