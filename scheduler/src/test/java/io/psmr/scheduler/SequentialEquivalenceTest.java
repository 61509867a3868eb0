package io.psmr.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.scheduler.testing.CheckingService;
import io.psmr.scheduler.testing.RecordingSink;
import io.psmr.scheduler.testing.TestCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The parallel scheduler gives the same outcome as sequential execution of the same delivered
 * batches: every response, the per-key order of writes and the final state, over seeded random
 * workloads in every mode and graph. The service fails loudly if conflicting commands overlap.
 *
 * <p>Re-run one workload with {@code -Dpsmr.seed=SEED -Dpsmr.workloads=1}.
 */
class SequentialEquivalenceTest {

    private static final long BASE_SEED = Long.getLong("psmr.seed", 0x5eed_2026L);
    private static final int WORKLOADS = Integer.getInteger("psmr.workloads", 150);
    private static final int[] KEY_SPACES = {1, 2, 8, 64, 1_000, 100_000, 1_000_000};
    private static final int[] BITMAP_SIZES = {1, 64, 1_024, 102_400, 1_024_000};

    static Stream<Arguments> modesAndGraphs() {
        List<Arguments> args = new ArrayList<>();
        for (ConflictMode mode : ConflictMode.values()) {
            for (GraphKind graph : GraphKind.values()) {
                args.add(Arguments.of(mode, graph));
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("modesAndGraphs")
    void parallelExecutionEqualsSequential(ConflictMode mode, GraphKind graph) throws Exception {
        for (int w = 0; w < WORKLOADS; w++) {
            long seed = BASE_SEED + 1_000_003L * w + 31L * mode.ordinal() + graph.ordinal();
            try {
                checkOneWorkload(seed, mode, graph);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("workload failed; re-run with -Dpsmr.seed=" + seed
                        + " -Dpsmr.workloads=1 (mode " + mode + ", graph " + graph + "): " + e.getMessage(), e);
            }
        }
    }

    private static void checkOneWorkload(long seed, ConflictMode mode, GraphKind graph) throws Exception {
        Random rnd = new Random(seed);
        int keySpace = KEY_SPACES[rnd.nextInt(KEY_SPACES.length)];
        int maxBatch = rnd.nextInt(4) == 0 ? 256 : 1 + rnd.nextInt(16);
        int batches = 4 + rnd.nextInt(28);
        double writeFraction = rnd.nextDouble();
        int workers = 1 + rnd.nextInt(8);
        int maxPending = 1 + rnd.nextInt(64);
        BitmapRepresentation representation = BitmapRepresentation.values()[rnd.nextInt(2)];
        ConflictDetection detection = new ConflictDetection(mode, BITMAP_SIZES[rnd.nextInt(BITMAP_SIZES.length)],
                representation);
        List<Batch<TestCommand>> workload = randomWorkload(rnd, detection, keySpace, maxBatch, batches, writeFraction);
        String setting = String.format("keys=%d maxBatch=%d batches=%d writes=%.2f workers=%d maxPending=%d %s",
                keySpace, maxBatch, batches, writeFraction, workers, maxPending, detection);

        boolean exclusive = mode != ConflictMode.RW_BITMAP;
        CheckingService reference = new CheckingService(exclusive, 0);
        RecordingSink referenceSink = new RecordingSink();
        run(Scheduler.builder(reference).resultSink(referenceSink).detection(detection).sequential(), workload);

        CheckingService parallel = new CheckingService(exclusive, 50);
        RecordingSink parallelSink = new RecordingSink();
        run(Scheduler.builder(parallel).resultSink(parallelSink).detection(detection).graph(graph)
                .workers(workers).maxPending(maxPending), workload);

        assertEquals(List.of(), parallel.violations(), "conflicting commands overlapped; " + setting);
        assertEquals(List.of(), parallelSink.duplicates(), "outcomes reported twice; " + setting);
        assertSameEntries(referenceSink.outcomes(), parallelSink.outcomes(), "responses differ; " + setting);
        assertSameEntries(reference.writeOrder(), parallel.writeOrder(), "per-key write order differs; " + setting);
        assertSameEntries(reference.state(), parallel.state(), "final state differs; " + setting);
        assertTrue(parallelSink.outcomes().values().stream().allMatch(o -> o.startsWith("ok:")),
                "every command must succeed; " + setting);
    }

    /** Compares two sorted maps and names the first entry that differs, not the whole maps. */
    private static <K, V> void assertSameEntries(Map<K, V> expected, Map<K, V> actual, String what) {
        if (expected.equals(actual)) {
            return;
        }
        for (K k : expected.keySet()) {
            if (!Objects.equals(expected.get(k), actual.get(k))) {
                throw new AssertionError(what + ": at " + k + " sequential gave " + expected.get(k)
                        + " but parallel gave " + actual.get(k));
            }
        }
        throw new AssertionError(what + ": parallel has extra entries; sizes " + expected.size() + " vs " + actual.size());
    }

    private static void run(SchedulerBuilder<TestCommand, Long> builder, List<Batch<TestCommand>> workload)
            throws InterruptedException {
        Scheduler<TestCommand, Long> scheduler = builder.start();
        try {
            for (Batch<TestCommand> b : workload) {
                scheduler.deliver(b);
            }
            assertTrue(scheduler.awaitIdle(30, TimeUnit.SECONDS), "scheduler did not go idle within 30 s");
        } finally {
            scheduler.close();
        }
        SchedulerMetrics m = scheduler.metrics();
        assertEquals(workload.size(), m.batchesExecuted(), "batches executed");
        assertEquals(workload.stream().mapToInt(Batch::size).sum(), m.commandsExecuted(), "commands executed");
    }

    static List<Batch<TestCommand>> randomWorkload(Random rnd, ConflictDetection detection, int keySpace,
                                                   int maxBatch, int batches, double writeFraction) {
        List<Batch<TestCommand>> workload = new ArrayList<>(batches);
        long id = 0;
        long instance = rnd.nextInt(5);
        for (int b = 0; b < batches; b++) {
            int size = 1 + rnd.nextInt(maxBatch);
            List<TestCommand> commands = new ArrayList<>(size);
            for (int c = 0; c < size; c++) {
                int nKeys = 1 + rnd.nextInt(Math.min(3, keySpace));
                long[] keys = new long[nKeys];
                boolean[] writes = new boolean[nKeys];
                for (int k = 0; k < nKeys; k++) {
                    long key;
                    boolean fresh;
                    do {
                        key = rnd.nextInt(keySpace);
                        fresh = true;
                        for (int j = 0; j < k; j++) {
                            fresh &= keys[j] != key;
                        }
                    } while (!fresh);
                    keys[k] = key;
                    writes[k] = rnd.nextDouble() < writeFraction;
                }
                commands.add(new TestCommand(id++, keys, writes));
            }
            // Instances strictly increase but may skip, as after no-op instances of the ordering layer.
            instance += 1 + (rnd.nextInt(4) == 0 ? rnd.nextInt(3) : 0);
            workload.add(Batch.of(instance, commands, detection));
        }
        return workload;
    }
}
