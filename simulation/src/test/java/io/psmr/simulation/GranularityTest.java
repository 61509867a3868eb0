package io.psmr.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Coarser granularities only add conflicts: whenever two batches share a key, the bitmap and the
 * partition modes report a conflict too, so they never report fewer conflicts than exact keys;
 * likewise read/write bitmaps against exact read/write keys, and exact keys against their
 * read/write refinement. Checked batch by batch (one-iteration chunks), not only in total.
 */
class GranularityTest {

    @Test
    void coarserModesNeverReportFewerConflictsThanExactKeys() {
        long master = 0xC0A25EL;
        SplittableRandom random = new SplittableRandom(master);
        int trueConflicts = 0;
        for (int trial = 0; trial < 3000; trial++) {
            long seed = random.nextLong();
            int batch = 1 + random.nextInt(16);
            SimulationConfig c = new SimulationConfig(1 + random.nextInt(5000), batch, 1 + random.nextInt(4),
                    batch + random.nextInt(300), 1,
                    random.nextBoolean() ? KeyDistribution.UNIFORM : KeyDistribution.ZIPF, 0.8,
                    random.nextDouble(), 1 + random.nextInt(1000));
            ConflictCounts one = new WindowSimulator(c.bitmapBits(), c.batchSize(), c.graphSize(), c.partitions())
                    .run(c, seed, 1, null);
            String context = "master seed " + master + ", trial " + trial + ", seed " + seed + ", " + c.describe();
            assertTrue(one.bitmap() >= one.exactKeys(), "bitmap missed a shared key: " + context);
            assertTrue(one.partition() >= one.exactKeys(), "partition missed a shared key: " + context);
            assertTrue(one.rwBitmap() >= one.rwExactKeys(), "r/w bitmap missed a conflict: " + context);
            assertTrue(one.exactKeys() >= one.rwExactKeys(), "r/w keys found a conflict exact keys did not: " + context);
            assertTrue(one.bitmap() >= one.rwBitmap(), "r/w bitmap found a conflict the bitmap did not: " + context);
            trueConflicts += (int) one.exactKeys();
        }
        // The check is void unless shared keys actually occur.
        assertTrue(trueConflicts > 300, "only " + trueConflicts + " true conflicts in 3000 trials");
    }

    @Test
    void oneBitOrOnePartitionMakesEveryBatchConflict() {
        SimulationConfig c = new SimulationConfig(1, 10, 1, 1_000_000, 1000, KeyDistribution.UNIFORM, 0.99, 0, 1);
        ConflictCounts counts = new SimulationRunner(1).run(c, 3, ProgressDisplay.NONE);
        assertEquals(1000, counts.bitmap());
        assertEquals(1000, counts.partition());
    }

    @Test
    void anEmptyListNeverConflicts() {
        SimulationConfig c = new SimulationConfig(1, 10, 0, 1_000, 1000, KeyDistribution.UNIFORM, 0.99, 0, 1);
        assertEquals(new ConflictCounts(1000, 0, 0, 0, 0, 0), new SimulationRunner(1).run(c, 3, ProgressDisplay.NONE));
    }
}
