package io.psmr.bench.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.scheduler.SchedulerMode;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/** The ceiling fraction pairs each round's run with the ceiling's run of the same round. */
class CeilingFractionTest {

    private static List<RunSample> runs(double... cps) {
        return java.util.Arrays.stream(cps).mapToObj(v -> new RunSample(v, 10, new Histogram(3))).toList();
    }

    @Test
    void theFractionIsTheMedianOfPerRoundFractionsNotTheRatioOfMedians() {
        // Per round 0.95, 0.8, 0.8; the ratio of the medians (950 / 1000) would say 0.95.
        Cell cell = new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 0);
        Cell ceiling = new Cell(BenchMode.partitioned(), 200, 2, 0);
        Cell sequential = new Cell(SchedulerMode.SEQUENTIAL, 200, 1, 0);
        Map<Cell, List<RunSample>> samples = Map.of(
                cell, runs(950, 400, 1000),
                ceiling, runs(1000, 500, 1250),
                sequential, runs(600, 600, 600));
        List<CellResult> results = SchedulerBench.summarise(List.of(sequential, ceiling, cell), samples, 2, Map.of());
        CellResult r = results.get(2);
        assertEquals(0.8, r.ceilingFraction(), 1e-12, "median of 0.95, 0.8, 0.8");
        assertEquals(0.8, r.ceilingMin(), 1e-12);
        assertEquals(0.95, r.ceilingMax(), 1e-12);
        assertEquals(950 / (2 * 600.0), r.limitFraction(), 1e-12, "the limit stays a ratio of medians");
        CellResult p = results.get(1);
        assertTrue(Double.isNaN(p.ceilingFraction()) && Double.isNaN(p.ceilingMin()) && Double.isNaN(p.ceilingMax()),
                "the ceiling is not a fraction of itself");
    }

    @Test
    void withoutACeilingCellTheFractionIsNotMeasured() {
        Cell cell = new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 0);
        CellResult r = SchedulerBench.summarise(List.of(cell), Map.of(cell, runs(900)), 2, Map.of()).get(0);
        assertTrue(Double.isNaN(r.ceilingFraction()) && Double.isNaN(r.ceilingMin()), "no partitioned cell ran");
    }
}
