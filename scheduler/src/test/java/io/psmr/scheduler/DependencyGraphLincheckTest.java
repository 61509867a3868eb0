package io.psmr.scheduler;

import io.psmr.scheduler.testing.KeyCommand;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Concurrency tests of the dependency graphs: Lincheck (model checking and stress) of insert,
 * tryTake and remove against their sequential behaviour, and a seeded multi-threaded stress test
 * of the scheduling invariants.
 */
class DependencyGraphLincheckTest {

    /** Base seed; re-run a failure with {@code -Dpsmr.seed=<seed>}. */
    private static final long SEED = Long.getLong("psmr.seed", 0x5EED_11C4L);


    private static byte[] key(int k) {
        return ("k" + k).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The Lincheck harness: one graph, inserts from the single delivery thread (a non-parallel
     * group), any thread taking and removing. Keys come from a space of three, so batches conflict
     * often. {@code tryTake} returns the instance it took, or -1, and keeps the handle;
     * {@code remove} removes the oldest batch the calling thread took and has not removed yet, and
     * returns its instance, or -1 if it holds none.
     *
     * <p>Handles are kept per Lincheck thread (the thread id is an operation parameter, so the
     * sequential specification keeps them the same way), and only their own thread touches them.
     * The harness therefore adds no lock of its own: every operation is exactly one graph call plus
     * thread-private bookkeeping, and any race Lincheck finds is the graph's. Capacity exceeds the
     * inserts of any scenario, so insert never blocks.
     */
    @Param(name = "key", gen = IntGen.class, conf = "0:2")
    public abstract static class GraphHarness {

        private static final int MAX_THREADS = 8;

        private final DependencyGraph<KeyCommand> graph;
        private final ArrayDeque<PendingBatch<KeyCommand>>[] held;
        private final int[] removed = new int[MAX_THREADS];
        private long lastInstance;
        private int inserted;

        @SuppressWarnings("unchecked")
        GraphHarness(GraphKind kind, ConflictDetection detection) {
            this.graph = kind.create(detection, 64);
            this.held = new ArrayDeque[MAX_THREADS];
            for (int t = 0; t < MAX_THREADS; t++) {
                held[t] = new ArrayDeque<>();
            }
        }

        /** Delivers a batch of two commands: one accessing {@code k1} ({@code write} or read), one reading {@code k2}. */
        @Operation(nonParallelGroup = "delivery")
        public long insert(@Param(name = "key") int k1, @Param(name = "key") int k2, boolean write)
                throws InterruptedException {
            long instance = ++lastInstance;
            List<KeyCommand> cmds = List.of(
                    new KeyCommand(new byte[][] {key(k1)}, new boolean[] {write}),
                    new KeyCommand(new byte[][] {key(k2)}, new boolean[] {false}));
            graph.insert(Batch.of(instance, cmds, graph.detection()));
            inserted++;
            return instance;
        }

        @Operation
        public long tryTake(@Param(gen = ThreadIdGen.class) int thread) {
            PendingBatch<KeyCommand> p = graph.tryTake();
            if (p == null) {
                return -1;
            }
            held[thread].addLast(p);
            return p.batch().instance();
        }

        @Operation
        public long remove(@Param(gen = ThreadIdGen.class) int thread) {
            PendingBatch<KeyCommand> p = held[thread].pollFirst();
            if (p == null) {
                return -1;
            }
            graph.remove(p);
            removed[thread]++;
            return p.batch().instance();
        }

        @Operation
        public int size() {
            return graph.size();
        }

        /** After each scenario: the graph holds exactly the batches inserted and not removed. */
        @Validate
        public void checkSize() {
            int removedTotal = 0;
            for (int r : removed) {
                removedTotal += r;
            }
            if (graph.size() != inserted - removedTotal) {
                throw new IllegalStateException("graph size " + graph.size() + " but " + inserted
                        + " inserted and " + removedTotal + " removed");
            }
            GraphStatistics st = graph.statistics();
            if (st.inserted() != inserted || st.removed() != removedTotal) {
                throw new IllegalStateException("statistics disagree: " + st);
            }
        }
    }

    public static class MonitorRw extends GraphHarness {
        public MonitorRw() {
            super(GraphKind.MONITOR, new ConflictDetection(ConflictMode.RW_BITMAP, 8, BitmapRepresentation.DENSE));
        }
    }

    public static class IndexedRw extends GraphHarness {
        public IndexedRw() {
            super(GraphKind.INDEXED, new ConflictDetection(ConflictMode.RW_BITMAP, 8, BitmapRepresentation.ROARING));
        }
    }

    public static class MonitorKeys extends GraphHarness {
        public MonitorKeys() {
            super(GraphKind.MONITOR, ConflictDetection.keysPairwise());
        }
    }

    public static class IndexedKeys extends GraphHarness {
        public IndexedKeys() {
            super(GraphKind.INDEXED, ConflictDetection.keysHashed());
        }
    }

    public static class SplitRw extends GraphHarness {
        public SplitRw() {
            super(GraphKind.SPLIT_INDEXED, new ConflictDetection(ConflictMode.RW_BITMAP, 8, BitmapRepresentation.ROARING));
        }
    }

    public static class SplitKeys extends GraphHarness {
        public SplitKeys() {
            super(GraphKind.SPLIT_INDEXED, ConflictDetection.keysHashed());
        }
    }

    static Stream<Class<? extends GraphHarness>> harnesses() {
        return Stream.of(MonitorRw.class, IndexedRw.class, MonitorKeys.class, IndexedKeys.class, SplitRw.class,
                SplitKeys.class);
    }

    /**
     * Lincheck's model checker over small scenarios (3 threads, inserts on one of them). The budget
     * is kept to a few seconds; raise it with {@code -Dpsmr.lincheck.iterations=N} (default 2).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("harnesses")
    void modelChecking(Class<? extends GraphHarness> harness) {
        new ModelCheckingOptions()
                .iterations(Integer.getInteger("psmr.lincheck.iterations", 2))
                .invocationsPerIteration(30)
                .threads(3)
                .actorsBefore(1)
                .actorsPerThread(2)
                .actorsAfter(1)
                // Summaries, keys, hashing and bitmaps are built by the delivery thread and immutable
                // afterwards; only the graph's own state is shared, so no thread switch is explored inside them.
                .addGuarantee(forClasses(DependencyGraphLincheckTest::isImmutableSupport).allMethods().treatAsAtomic())
                .check(harness);
    }

    private static boolean isImmutableSupport(String className) {
        String n = className.replace('/', '.');
        if (n.startsWith("org.roaringbitmap.")) {
            return true;
        }
        return switch (n) {
            case "io.psmr.scheduler.Key", "io.psmr.scheduler.KeyDigest", "io.psmr.scheduler.KeyListSummary",
                 "io.psmr.scheduler.KeySetSummary", "io.psmr.scheduler.BitmapSummary",
                 "io.psmr.scheduler.RwBitmapSummary", "io.psmr.scheduler.SummaryBuilder",
                 "io.psmr.scheduler.RoaringBloomBitmap", "io.psmr.scheduler.DenseBloomBitmap",
                 "io.psmr.scheduler.BloomBitmap", "io.psmr.scheduler.ConflictDetection",
                 "io.psmr.scheduler.ConflictSummary", "io.psmr.scheduler.Batch" -> true;
            default -> false;
        };
    }

    /** Lincheck's stress mode: the same scenarios run on real threads; {@code -Dpsmr.lincheck.iterations} scales it too. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("harnesses")
    void stress(Class<? extends GraphHarness> harness) {
        new StressOptions()
                .iterations(Integer.getInteger("psmr.lincheck.iterations", 2) * 2)
                .invocationsPerIteration(150)
                .threads(3)
                .actorsBefore(2)
                .actorsPerThread(3)
                .actorsAfter(1)
                .check(harness);
    }

    // ---------------------------------------------------------------------------------------------
    // Seeded multi-threaded stress of the invariants, with blocking take() and a full graph.

    static Stream<Arguments> stressSettings() {
        return Stream.of(
                Arguments.of(GraphKind.MONITOR, ConflictDetection.keysPairwise(), 0),
                Arguments.of(GraphKind.INDEXED, ConflictDetection.keysHashed(), 0),
                Arguments.of(GraphKind.MONITOR, new ConflictDetection(ConflictMode.BITMAP, 64, BitmapRepresentation.DENSE), 0),
                Arguments.of(GraphKind.INDEXED, new ConflictDetection(ConflictMode.BITMAP, 64, BitmapRepresentation.ROARING), 0),
                Arguments.of(GraphKind.MONITOR, new ConflictDetection(ConflictMode.RW_BITMAP, 64, BitmapRepresentation.ROARING), 0),
                Arguments.of(GraphKind.INDEXED, new ConflictDetection(ConflictMode.RW_BITMAP, 64, BitmapRepresentation.DENSE), 0),
                Arguments.of(GraphKind.SPLIT_INDEXED, ConflictDetection.keysHashed(), 0),
                Arguments.of(GraphKind.SPLIT_INDEXED, new ConflictDetection(ConflictMode.BITMAP, 64, BitmapRepresentation.ROARING), 0),
                Arguments.of(GraphKind.SPLIT_INDEXED, new ConflictDetection(ConflictMode.RW_BITMAP, 64, BitmapRepresentation.DENSE), 0),
                // Workers that spin before parking: the same invariants, through the spin path.
                Arguments.of(GraphKind.SPLIT_INDEXED, new ConflictDetection(ConflictMode.BITMAP, 64, BitmapRepresentation.ROARING), 200),
                Arguments.of(GraphKind.SPLIT_INDEXED, new ConflictDetection(ConflictMode.RW_BITMAP, 64, BitmapRepresentation.ROARING), 200),
                Arguments.of(GraphKind.INDEXED, ConflictDetection.keysHashed(), 200));
    }

    /**
     * One delivery thread inserts seeded random batches into a small graph (so insert blocks when
     * full) while four workers take, "run" and remove them. A failing thread aborts the graph, so
     * a broken graph fails the test instead of hanging it. Checked: no batch is taken twice; when
     * a batch is taken, every earlier conflicting batch has already finished running; every batch
     * is taken exactly once; the graph ends empty.
     */
    @ParameterizedTest(name = "{0} {1} spins {2}")
    @MethodSource("stressSettings")
    void workersNeverRunABatchBeforeAConflictingEarlierOne(GraphKind kind, ConflictDetection det, int spins)
            throws Exception {
        for (int round = 0; round < 4; round++) {
            long seed = SEED * 1_000_003 + kind.ordinal() * 101L + det.mode().ordinal() * 7L + round;
            runStress(kind, det, spins, seed);
        }
    }

    private static void runStress(GraphKind kind, ConflictDetection det, int spins, long seed) throws Exception {
        String ctx = " [" + kind + ", " + det + ", spins " + spins + ", psmr.seed=" + SEED + ", round seed " + seed + "]";
        Random rnd = new Random(seed);
        int batches = 1500;
        List<Batch<KeyCommand>> all = new ArrayList<>(batches);
        for (int i = 0; i < batches; i++) {
            int n = 1 + rnd.nextInt(3);
            List<KeyCommand> cmds = new ArrayList<>();
            for (int c = 0; c < n; c++) {
                cmds.add(new KeyCommand(new byte[][] {key(rnd.nextInt(12))}, new boolean[] {rnd.nextInt(3) == 0}));
            }
            all.add(Batch.of(i, cmds, det));
        }
        DependencyGraph<KeyCommand> graph = kind.create(det, 1 + rnd.nextInt(16), spins);
        // 0 = not taken, 1 = taken (running), 2 = finished; written before remove(), read after take().
        AtomicIntegerArray state = new AtomicIntegerArray(batches);
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        int workers = 4;
        CountDownLatch done = new CountDownLatch(workers + 1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            threads.add(new Thread(() -> {
                try {
                    PendingBatch<KeyCommand> p;
                    while ((p = graph.take()) != null) {
                        int i = (int) p.batch().instance();
                        if (!state.compareAndSet(i, 0, 1)) {
                            violations.add("batch " + i + " taken twice");
                        }
                        ConflictSummary s = p.batch().summary();
                        for (int j = 0; j < i; j++) {
                            if (state.get(j) != 2 && all.get(j).summary().conflictsWith(s)) {
                                violations.add("batch " + i + " taken while conflicting earlier batch " + j
                                        + " is in state " + state.get(j));
                            }
                        }
                        state.set(i, 2);
                        graph.remove(p);
                    }
                } catch (Throwable e) {
                    violations.add("worker failed: " + e);
                    graph.abort(); // wakes the delivery thread and the other workers
                } finally {
                    done.countDown();
                }
            }, "stress-worker-" + w));
        }
        threads.add(new Thread(() -> {
            try {
                for (Batch<KeyCommand> b : all) {
                    graph.insert(b);
                }
                graph.close();
            } catch (Throwable e) {
                violations.add("delivery failed: " + e);
                graph.abort();
            } finally {
                done.countDown();
            }
        }, "stress-delivery"));
        for (Thread t : threads) {
            t.setDaemon(true);
            t.start();
        }
        if (!done.await(60, TimeUnit.SECONDS)) {
            graph.abort();
            for (Thread t : threads) {
                t.interrupt();
            }
            fail("delivery and workers did not finish within 60 s: graph size " + graph.size() + ", "
                    + violations.stream().limit(5).toList() + ctx);
        }
        assertTrue(violations.isEmpty(), violations.stream().limit(5).toList() + ctx);
        for (int i = 0; i < batches; i++) {
            assertEquals(2, state.get(i), "batch " + i + " never ran" + ctx);
        }
        assertEquals(0, graph.size(), ctx);
        assertNull(graph.take(), "a closed, drained graph returns null" + ctx);
        assertEquals(batches, graph.statistics().removed(), ctx);
    }

    /** The harness behaves as intended when run on one thread, so Lincheck compares against the right thing. */
    @Test
    void harnessSequentialSanity() throws InterruptedException {
        for (GraphHarness h : new GraphHarness[] {new MonitorKeys(), new IndexedKeys(), new MonitorRw(), new IndexedRw()}) {
            String name = h.getClass().getSimpleName();
            assertEquals(1, h.insert(0, 1, true), name);
            assertEquals(2, h.insert(0, 2, true), name); // conflicts with 1 on key 0
            assertEquals(3, h.insert(1, 1, false), name); // reads key 1 like batch 1: only the key modes conflict
            assertEquals(1, h.tryTake(0), name);
            long third = h.tryTake(1);
            if (h.graph.detection().mode() == ConflictMode.RW_BITMAP && !bitsCollide(h.graph.detection())) {
                assertEquals(3, third, name + ": readers of the same key run in parallel");
            } else if (!h.graph.detection().mode().usesBitmaps()) {
                assertEquals(-1, third, name + ": key modes make readers wait");
            }
            assertEquals(-1, h.remove(2), name + ": thread 2 holds nothing");
            assertEquals(1, h.remove(0), name);
            assertEquals(-1, h.remove(0), name);
            assertEquals(2, h.tryTake(0), name + ": batch 2 is free once batch 1 is removed");
            h.checkSize();
        }
    }

    /** Whether any two of the harness keys k0..k2 share a bit, so that the fixed expectations above would not hold. */
    private static boolean bitsCollide(ConflictDetection det) {
        int m = det.bitmapBits();
        int b0 = KeyDigest.bitIndex(KeyDigest.digest(key(0)), m);
        int b1 = KeyDigest.bitIndex(KeyDigest.digest(key(1)), m);
        int b2 = KeyDigest.bitIndex(KeyDigest.digest(key(2)), m);
        return b0 == b1 || b0 == b2 || b1 == b2;
    }
}
