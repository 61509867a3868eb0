package io.psmr.scheduler;

import io.psmr.scheduler.testing.KeyCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Drives a {@link MonitorGraph}, an {@link IndexedGraph} and a {@link SplitIndexedGraph} through the
 * same random operations and checks that they keep the same transitive closure and hand out the same
 * batches, and that the monitor graph's edges are exactly the conflicting pending pairs.
 */
class GraphClosureEquivalenceTest {

    /** Base seed; re-run a failure with {@code -Dpsmr.seed=<seed>}. */
    private static final long SEED = Long.getLong("psmr.seed", 0x5EED_6A4FL);

    /** Random operation sequences per setting. */
    private static final int SEQUENCES = 600;


    static Stream<Arguments> settings() {
        return Stream.of(
                Arguments.of(ConflictMode.KEYS_PAIRWISE, null),
                Arguments.of(ConflictMode.KEYS_HASHED, null),
                Arguments.of(ConflictMode.BITMAP, BitmapRepresentation.ROARING),
                Arguments.of(ConflictMode.BITMAP, BitmapRepresentation.DENSE),
                Arguments.of(ConflictMode.RW_BITMAP, BitmapRepresentation.ROARING),
                Arguments.of(ConflictMode.RW_BITMAP, BitmapRepresentation.DENSE));
    }

    /** One random sequence: both graphs, the model of what is pending and taken, and the handles. */
    private static final class Run {
        final ConflictDetection det;
        final MonitorGraph<KeyCommand> monitor;
        final IndexedGraph<KeyCommand> indexed;
        final SplitIndexedGraph<KeyCommand> split;
        final String ctx;
        /** Batches in the graph, in delivery order. */
        final List<Batch<KeyCommand>> pending = new ArrayList<>();
        final Map<Long, Boolean> taken = new HashMap<>();
        final Map<Long, PendingBatch<KeyCommand>> monitorHandles = new HashMap<>();
        final Map<Long, PendingBatch<KeyCommand>> indexedHandles = new HashMap<>();
        final Map<Long, PendingBatch<KeyCommand>> splitHandles = new HashMap<>();
        final StringBuilder log = new StringBuilder();
        long lastInstance;

        Run(ConflictDetection det, int capacity, String ctx) {
            this.det = det;
            this.monitor = new MonitorGraph<>(det, capacity);
            this.indexed = new IndexedGraph<>(det, capacity);
            this.split = new SplitIndexedGraph<>(det, capacity);
            this.ctx = ctx;
        }

        String where() {
            return ctx + "\n  operations: " + log;
        }

        void insert(Batch<KeyCommand> b) throws InterruptedException {
            log.append(" insert(").append(b.instance()).append(')');
            monitor.insert(b);
            indexed.insert(b);
            split.insert(b);
            pending.add(b);
            taken.put(b.instance(), false);
            lastInstance = b.instance();
        }

        /** The oldest pending batch not taken and with no conflicting earlier pending batch. */
        Long expectedFree() {
            for (int i = 0; i < pending.size(); i++) {
                Batch<KeyCommand> b = pending.get(i);
                if (taken.get(b.instance())) {
                    continue;
                }
                boolean free = true;
                for (int j = 0; j < i && free; j++) {
                    free = !pending.get(j).summary().conflictsWith(b.summary());
                }
                if (free) {
                    return b.instance();
                }
            }
            return null;
        }

        void tryTake() {
            log.append(" tryTake");
            PendingBatch<KeyCommand> m = monitor.tryTake();
            PendingBatch<KeyCommand> x = indexed.tryTake();
            PendingBatch<KeyCommand> y = split.tryTake();
            Long want = expectedFree();
            Long gotM = m == null ? null : m.batch().instance();
            Long gotX = x == null ? null : x.batch().instance();
            Long gotY = y == null ? null : y.batch().instance();
            log.append('=').append(gotM);
            assertEquals(want, gotM, "MonitorGraph.tryTake is not the oldest free batch" + where());
            assertEquals(gotM, gotX, "IndexedGraph.tryTake differs from MonitorGraph.tryTake" + where());
            assertEquals(gotM, gotY, "SplitIndexedGraph.tryTake differs from MonitorGraph.tryTake" + where());
            if (m != null) {
                taken.put(gotM, true);
                monitorHandles.put(gotM, m);
                indexedHandles.put(gotX, x);
                splitHandles.put(gotY, y);
            }
        }

        void remove(long instance) {
            log.append(" remove(").append(instance).append(')');
            monitor.remove(monitorHandles.remove(instance));
            indexed.remove(indexedHandles.remove(instance));
            split.remove(splitHandles.remove(instance));
            taken.remove(instance);
            pending.removeIf(b -> b.instance() == instance);
        }

        void check() {
            assertEquals(pending.size(), monitor.size(), "MonitorGraph size" + where());
            assertEquals(pending.size(), indexed.size(), "IndexedGraph size" + where());
            assertEquals(pending.size(), split.size(), "SplitIndexedGraph size" + where());
            Map<Long, List<Long>> me = monitor.edges();
            Map<Long, List<Long>> ie = indexed.edges();
            Map<Long, List<Long>> se = split.edges();
            List<Long> order = pending.stream().map(Batch::instance).toList();
            assertEquals(order, List.copyOf(me.keySet()), "MonitorGraph pending instances" + where());
            assertEquals(order, List.copyOf(ie.keySet()), "IndexedGraph pending instances" + where());
            assertEquals(order, List.copyOf(se.keySet()), "SplitIndexedGraph pending instances" + where());

            // MonitorGraph: the direct edges are exactly the conflicting pending pairs.
            Map<Long, List<Long>> conflicting = new LinkedHashMap<>();
            for (int i = 0; i < pending.size(); i++) {
                List<Long> preds = new ArrayList<>();
                for (int j = 0; j < i; j++) {
                    if (pending.get(j).summary().conflictsWith(pending.get(i).summary())) {
                        preds.add(pending.get(j).instance());
                    }
                }
                conflicting.put(pending.get(i).instance(), preds);
            }
            assertEquals(conflicting, me, "MonitorGraph edges are not the conflicting pending pairs" + where());

            // The indexed graphs: every direct edge is a real conflict, and the closures are equal.
            assertOnlyConflictEdges("IndexedGraph", ie, conflicting);
            assertOnlyConflictEdges("SplitIndexedGraph", se, conflicting);
            assertEquals(closure(order, me), closure(order, ie), "transitive closures differ" + where());
            assertEquals(closure(order, me), closure(order, se), "SplitIndexedGraph's transitive closure differs" + where());
        }

        private void assertOnlyConflictEdges(String graph, Map<Long, List<Long>> edges, Map<Long, List<Long>> conflicting) {
            for (Map.Entry<Long, List<Long>> e : edges.entrySet()) {
                for (Long p : e.getValue()) {
                    if (!conflicting.get(e.getKey()).contains(p)) {
                        fail(graph + " has edge " + p + " -> " + e.getKey() + " between non-conflicting batches" + where());
                    }
                }
            }
        }

        void drain() {
            while (!pending.isEmpty()) {
                tryTake();
                List<Long> takenNow = new ArrayList<>(monitorHandles.keySet());
                assertTrue(!takenNow.isEmpty(), "graph has pending batches but none can be taken" + where());
                remove(takenNow.get(0));
                check();
            }
            assertNull(monitor.tryTake(), where());
            assertNull(indexed.tryTake(), where());
            assertNull(split.tryTake(), where());
            assertEquals(monitor.statistics().inserted(), indexed.statistics().inserted(), where());
            assertEquals(monitor.statistics().removed(), indexed.statistics().removed(), where());
            assertEquals(0, monitor.statistics().size(), where());
            assertEquals(0, indexed.statistics().size(), where());
            assertEquals(monitor.statistics().removed(), split.statistics().removed(), where());
            assertEquals(0, split.statistics().size(), where());
        }
    }

    /** For each pending instance, in delivery order, the positions of all its transitive predecessors. */
    static List<BitSet> closure(List<Long> order, Map<Long, List<Long>> edges) {
        Map<Long, Integer> pos = new HashMap<>();
        for (int i = 0; i < order.size(); i++) {
            pos.put(order.get(i), i);
        }
        List<BitSet> anc = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            BitSet a = new BitSet();
            for (Long p : edges.get(order.get(i))) {
                int j = pos.get(p);
                if (j >= i) {
                    fail("edge " + p + " -> " + order.get(i) + " points backwards in delivery order");
                }
                a.set(j);
                a.or(anc.get(j));
            }
            anc.add(a);
        }
        return anc;
    }

    private static Batch<KeyCommand> randomBatch(Random rnd, long instance, ConflictDetection det, int keySpace, double writeRatio) {
        int n = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 12 : 3);
        List<KeyCommand> cmds = new ArrayList<>(n);
        for (int c = 0; c < n; c++) {
            int keys = rnd.nextInt(15) == 0 ? 0 : 1 + rnd.nextInt(3);
            byte[][] ks = new byte[keys][];
            boolean[] ws = new boolean[keys];
            for (int i = 0; i < keys; i++) {
                ks[i] = ("key" + rnd.nextInt(keySpace)).getBytes(StandardCharsets.US_ASCII);
                ws[i] = rnd.nextDouble() < writeRatio;
            }
            cmds.add(new KeyCommand(ks, ws));
        }
        return Batch.of(instance, cmds, det);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("settings")
    void graphsKeepTheSameClosureAndHandOutTheSameBatches(ConflictMode mode, BitmapRepresentation rep)
            throws InterruptedException {
        Random seeds = new Random(SEED * 1_000_003 + mode.ordinal() * 10L + (rep == null ? 0 : rep.ordinal() + 1));
        int[] sizes = {1, 3, 16, 64, 1024, 102_400};
        double[] writeRatios = {0, 0.2, 0.5, 0.8, 1};
        long ops = 0;
        long takes = 0;
        for (int seq = 0; seq < SEQUENCES; seq++) {
            long seqSeed = seeds.nextLong();
            Random rnd = new Random(seqSeed);
            ConflictDetection det = mode.usesBitmaps()
                    ? new ConflictDetection(mode, sizes[rnd.nextInt(sizes.length)], rep)
                    : new ConflictDetection(mode, 0, null);
            int capacity = 1 + rnd.nextInt(20);
            int keySpace = 1 + rnd.nextInt(rnd.nextBoolean() ? 8 : 60);
            double writeRatio = writeRatios[rnd.nextInt(writeRatios.length)];
            Run run = new Run(det, capacity, " [" + det + ", capacity " + capacity + ", keys " + keySpace
                    + ", writes " + writeRatio + ", psmr.seed=" + SEED + ", sequence " + seq + " seed " + seqSeed + "]");
            int length = 20 + rnd.nextInt(80);
            for (int op = 0; op < length; op++, ops++) {
                int r = rnd.nextInt(100);
                if (r < 45 && run.pending.size() < capacity) {
                    run.insert(randomBatch(rnd, run.lastInstance + 1 + rnd.nextInt(3), det, keySpace, writeRatio));
                } else if (r < 75 || run.monitorHandles.isEmpty()) {
                    run.tryTake();
                    takes++;
                } else {
                    List<Long> candidates = new ArrayList<>(run.monitorHandles.keySet());
                    candidates.sort(null);
                    run.remove(candidates.get(rnd.nextInt(candidates.size())));
                }
                run.check();
            }
            run.drain();
        }
        assertTrue(ops >= SEQUENCES * 20L && takes > 0, "ops " + ops + ", takes " + takes);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("settings")
    void aBatchFreedByARemovalIsTakenInDeliveryOrder(ConflictMode mode, BitmapRepresentation rep)
            throws InterruptedException {
        ConflictDetection det = mode.usesBitmaps() ? new ConflictDetection(mode, 4096, rep) : new ConflictDetection(mode, 0, null);
        for (GraphKind kind : GraphKind.values()) {
            DependencyGraph<KeyCommand> g = kind.create(det, 8);
            byte[] k = "shared".getBytes(StandardCharsets.US_ASCII);
            byte[] other = "other".getBytes(StandardCharsets.US_ASCII);
            g.insert(Batch.of(1, List.of(new KeyCommand(new byte[][] {k}, new boolean[] {true})), det));
            g.insert(Batch.of(2, List.of(new KeyCommand(new byte[][] {k}, new boolean[] {true})), det));
            g.insert(Batch.of(3, List.of(new KeyCommand(new byte[][] {other}, new boolean[] {true})), det));
            PendingBatch<KeyCommand> first = g.tryTake();
            assertNotNull(first, kind.name());
            assertEquals(1, first.batch().instance(), kind + " " + det);
            PendingBatch<KeyCommand> third = g.tryTake();
            assertEquals(3, third.batch().instance(), kind + " " + det + ": batch 2 waits for batch 1");
            assertNull(g.tryTake(), kind + " " + det);
            assertEquals(List.of(1L), g.edges().get(2L), kind + " " + det);
            g.remove(first);
            PendingBatch<KeyCommand> second = g.tryTake();
            assertEquals(2, second.batch().instance(), kind + " " + det);
            g.remove(second);
            g.remove(third);
            assertEquals(0, g.size(), kind + " " + det);
        }
    }
}
