package io.psmr.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Sweep ranges parse and space as documented; sizing returns the smallest bitmap that meets the target. */
class SweepAndSizingTest {

    @Test
    void bitsAreSpacedGeometricallyAndEndOnTheRange() {
        List<Integer> v = SweepSpec.parse("bits=102400..4096000", 5).values();
        assertEquals(5, v.size());
        assertEquals(102_400, v.get(0));
        assertEquals(4_096_000, v.get(4));
        // Geometric: equal ratios, about 2.515 here.
        assertEquals(v.get(1) / (double) v.get(0), v.get(3) / (double) v.get(2), 1e-3);
    }

    @Test
    void graphSizesAreLinearAndDistinct() {
        assertEquals(List.of(0, 1, 2, 3), SweepSpec.parse("graph=0..3", 10).values());
        assertEquals(List.of(100, 150, 200), SweepSpec.parse("batch=100..200", 3).values());
    }

    @Test
    void malformedSweepsAreRefused() {
        for (String bad : new String[] {"bits", "bits=1", "size=1..2", "bits=a..b", "bits=5..1", "bits=0..10"}) {
            assertThrows(IllegalArgumentException.class, () -> SweepSpec.parse(bad, 10), bad);
        }
    }

    @Test
    void sizingReturnsTheSmallestBitmapUnderTheTarget() {
        SimulationConfig base = SimulationConfig.paper(1, 200, 7, 1);
        BitmapSizing.Answer a = BitmapSizing.smallestBits(base, 0.10);
        assertTrue(a.analyticRate() <= 0.10, "rate at m " + a.analyticRate());
        assertTrue(a.analyticRateOneBitLess() > 0.10, "rate at m-1 " + a.analyticRateOneBitLess());
        // 1 - exp(-g B^2 / m - g B^2 / K) = R gives m ≈ g B^2 / (-ln(1 - R) - g B^2 / K) ≈ 2,664,624.
        double pairs = 7.0 * 200 * 200;
        assertEquals(pairs / (-Math.log(0.9) - pairs / SimulationConfig.DEFAULT_KEYS), a.bitmapBits(), 2);
    }

    @Test
    void sizingRefusesTargetsThatTrueConflictsAlreadyExceed() {
        SimulationConfig base = new SimulationConfig(1, 100, 5, 10_000, 1, KeyDistribution.UNIFORM, 0.99, 0, 0);
        assertThrows(IllegalArgumentException.class, () -> BitmapSizing.smallestBits(base, 0.01));
    }
}
