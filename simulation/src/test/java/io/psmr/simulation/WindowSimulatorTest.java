package io.psmr.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.KeyDigest;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fast path must decide every conflict exactly as the scheduler's production summaries do:
 * same counts, to the batch, under every granularity, on random small configurations where
 * conflicts of every kind are frequent.
 */
class WindowSimulatorTest {

    @ParameterizedTest
    @EnumSource(BitmapRepresentation.class)
    void countsEqualThoseOfTheProductionSummaries(BitmapRepresentation representation) {
        long master = 0x5EED_0001L;
        SplittableRandom random = new SplittableRandom(master);
        for (int trial = 0; trial < 40; trial++) {
            long seed = random.nextLong();
            SimulationConfig c = randomConfig(random);
            long n = 300;
            WindowSimulator fast = new WindowSimulator(c.bitmapBits(), c.batchSize(), c.graphSize(), c.partitions());
            ConflictCounts got = fast.run(c, seed, n, null);
            // A second chunk on the same instance must not see the first one's stamps.
            ConflictCounts again = fast.run(c, seed, n, null);
            ConflictCounts want = ReferenceSimulator.run(c, seed, n, representation);
            String context = "master seed " + master + ", trial " + trial + ", chunk seed " + seed + ", " + c.describe();
            assertEquals(want, got, context);
            assertEquals(want, again, "reused instance: " + context);
        }
    }

    @Test
    void integerKeysHashLikeTheirLittleEndianBytes() {
        // The oracle feeds bytes to SummaryBuilder while the fast path hashes longs; they must agree.
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 1000; i++) {
            long key = random.nextLong();
            assertEquals(KeyDigest.digest(ReferenceSimulator.littleEndian(key)), KeyDigest.digest(key), "key " + key);
        }
    }

    private static SimulationConfig randomConfig(SplittableRandom r) {
        KeyDistribution d = r.nextBoolean() ? KeyDistribution.UNIFORM : KeyDistribution.ZIPF;
        int batch = 1 + r.nextInt(24);
        long keys = batch + r.nextInt(400);
        return new SimulationConfig(
                1 + r.nextInt(600),
                batch,
                r.nextInt(5),
                keys,
                1,
                d,
                0.3 + r.nextDouble() * 1.2,
                r.nextInt(3) == 0 ? 0.0 : r.nextDouble(),
                r.nextBoolean() ? 0 : 1 + r.nextInt(200));
    }
}
