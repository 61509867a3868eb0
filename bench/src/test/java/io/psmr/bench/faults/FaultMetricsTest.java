package io.psmr.bench.faults;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The report's arithmetic on synthetic timelines of 100 ms buckets. */
class FaultMetricsTest {

    private static final long B = 100;

    /** {@code n} buckets of {@code perBucket} operations each. */
    private static long[] flat(int n, long perBucket) {
        long[] b = new long[n];
        Arrays.fill(b, perBucket);
        return b;
    }

    @Test
    void opsPerSecondIsTheWindowsCountOverItsLength() {
        long[] b = flat(20, 10); // 10 per 100 ms: 100 ops/s
        assertEquals(100.0, FaultMetrics.opsPerSecond(b, 0, 20, B), 1e-9);
        b[5] = 60;
        assertEquals(150.0, FaultMetrics.opsPerSecond(b, 0, 10, B), 1e-9);
        assertEquals(100.0, FaultMetrics.opsPerSecond(b, 10, 20, B), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> FaultMetrics.opsPerSecond(b, 5, 5, B));
        assertThrows(IllegalArgumentException.class, () -> FaultMetrics.opsPerSecond(b, 10, 21, B));
    }

    @Test
    void fractionIsFaultyOverFaultFree() {
        assertEquals(0.25, FaultMetrics.fraction(400, 100), 1e-12);
        assertEquals(1.0, FaultMetrics.fraction(400, 400), 1e-12);
        assertTrue(Double.isNaN(FaultMetrics.fraction(0, 100)));
    }

    @Test
    void aFaultThatNeverDipsRecoversAtOnce() {
        long[] b = flat(50, 10);
        assertEquals(OptionalLong.of(0), FaultMetrics.recoveryMillis(b, 20, 50, B, 100));
    }

    @Test
    void recoveryIsWhenTheFirstOneSecondWindowThatStaysAboveStarts() {
        long[] b = flat(60, 10); // fault-free 100 ops/s
        // Onset at bucket 20: 1.5 s with nothing completed, then back to normal.
        for (int i = 20; i < 35; i++) {
            b[i] = 0;
        }
        // The window starting at bucket s holds (s + 10 - 35) * 10 operations once it reaches 35: it needs 80,
        // i.e. 8 full buckets, so s + 10 - 35 >= 8, s = 33: 1.3 s after the onset.
        assertEquals(OptionalLong.of(1300), FaultMetrics.recoveryMillis(b, 20, 60, B, 100));
    }

    @Test
    void aLaterDipMovesTheRecoveryPastIt() {
        long[] b = flat(80, 10);
        for (int i = 20; i < 25; i++) {
            b[i] = 0; // first dip, 0.5 s: its windows hold 50..
        }
        for (int i = 50; i < 60; i++) {
            b[i] = 2; // a second second at 20 ops/s
        }
        OptionalLong r = FaultMetrics.recoveryMillis(b, 20, 80, B, 100);
        // Windows that overlap the second dip by 3 or more buckets fall below 80 ops/s; the last such starts at 57.
        assertEquals(OptionalLong.of((58 - 20) * B), r);
    }

    @Test
    void throughputBelowTheThresholdAtTheEndIsNever() {
        long[] b = flat(60, 10);
        for (int i = 20; i < 60; i++) {
            b[i] = 3; // 30 ops/s for the whole faulty window
        }
        assertEquals(OptionalLong.empty(), FaultMetrics.recoveryMillis(b, 20, 60, B, 100));
        // Back for a while, then down again in the last second: still never.
        long[] c = flat(60, 10);
        for (int i = 50; i < 60; i++) {
            c[i] = 0;
        }
        assertEquals(OptionalLong.empty(), FaultMetrics.recoveryMillis(c, 20, 60, B, 100));
    }

    @Test
    void exactlyTheThresholdCountsAsBack() {
        long[] b = flat(40, 8); // 80 ops/s against 100 fault-free: 0.8 exactly
        assertEquals(OptionalLong.of(0), FaultMetrics.recoveryMillis(b, 20, 40, B, 100));
    }

    /**
     * A fault that costs 1.5 s, then a dip of the machine's own later on: the first return comes right after the
     * fault's gap, the strict recovery only after the later dip; the share of windows below counts both.
     */
    @Test
    void firstReturnIgnoresALaterDipThatTheStrictRecoveryCounts() {
        long[] b = flat(80, 10);
        for (int i = 20; i < 35; i++) {
            b[i] = 0;
        }
        for (int i = 50; i < 60; i++) {
            b[i] = 2;
        }
        assertEquals(OptionalLong.of(1300), FaultMetrics.firstBackMillis(b, 20, 80, B, 100));
        assertEquals(OptionalLong.of((58 - 20) * B), FaultMetrics.recoveryMillis(b, 20, 80, B, 100));
        // The 51 windows starting at buckets 20..70, counted one by one: 13 over the gap (starts 20..32), 15 over the dip (43..57).
        long below = java.util.stream.IntStream.rangeClosed(20, 70)
                .filter(s -> FaultMetrics.opsPerSecond(b, s, s + 10, B) < 80).count();
        assertEquals(28, below);
        assertEquals(below / 51.0, FaultMetrics.shareBelow(b, 20, 80, B, 100), 1e-12);
        assertEquals(0.0, FaultMetrics.shareBelow(b, 0, 20, B, 100), 1e-12);
        long[] never = flat(40, 1);
        assertEquals(OptionalLong.empty(), FaultMetrics.firstBackMillis(never, 20, 40, B, 100));
        assertEquals(1.0, FaultMetrics.shareBelow(never, 20, 40, B, 100), 1e-12);
    }

    @Test
    void aFaultyWindowShorterThanTheSmoothingIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> FaultMetrics.recoveryMillis(flat(30, 1), 25, 30, B, 10));
        assertThrows(IllegalArgumentException.class, () -> FaultMetrics.recoveryMillis(flat(30, 1), 20, 31, B, 10));
    }

    @Test
    void perSecondSumsWholeSecondsAndTrailingRateSmooths() {
        long[] b = flat(25, 10);
        b[0] = 0;
        assertArrayEquals(new long[] {90, 100}, FaultMetrics.perSecond(b, B));
        double[] r = FaultMetrics.trailingRate(b, B);
        assertEquals(25, r.length);
        assertEquals(0.0, r[0], 1e-9);
        assertEquals(50.0, r[1], 1e-9); // 10 over the first 200 ms
        assertEquals(90.0, r[9], 1e-9);
        assertEquals(100.0, r[10], 1e-9);
    }
}
