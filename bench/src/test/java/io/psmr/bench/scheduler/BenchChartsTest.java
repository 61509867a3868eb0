package io.psmr.bench.scheduler;

import io.psmr.scheduler.SchedulerMode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.chart.ChartAsserts;
import io.psmr.bench.chart.RangeBars;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;

class BenchChartsTest {

    private static CellResult result(SchedulerMode mode, int workers, double median, double min, double max) {
        return new CellResult(new Cell(mode, 64, workers, 0), median, min, max, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, 0, 1, 2, 3, 0);
    }

    private final List<CellResult> runs = List.of(
            result(SchedulerMode.BITMAP_INDEXED, 2, 200_000, 150_000, 260_000),
            result(SchedulerMode.BITMAP_INDEXED, 1, 100_000, 90_000, 101_000),
            result(SchedulerMode.RW_BITMAP, 1, 120_000, 120_000, 125_000));

    @Test
    void everyBarCarriesTheMinAndMaxOfItsRuns() {
        CategoryChart chart = BenchCharts.chart("t", runs, false);
        CategorySeries range = chart.getSeries(RangeBars.RANGE_SERIES);
        assertEquals(List.of("1 thread", "2 threads", RangeBars.RANGE_SERIES), chart.getSeriesCollection().stream().map(CategorySeries::getName).toList());
        List<String> categories = range.getXData().stream().map(String::valueOf).toList();
        assertEquals(3, categories.size(), categories.toString());
        assertTrue(categories.get(0).endsWith(" w=1") && categories.get(1).endsWith(" w=2"), categories.toString());
        assertArrayEquals(new double[] {100, Double.NaN, 120}, chart.getSeries("1 thread").getYData(), 1e-9);
        assertArrayEquals(new double[] {Double.NaN, 200, Double.NaN}, chart.getSeries("2 threads").getYData(), 1e-9);
        assertArrayEquals(new double[] {90, 150, 120}, ChartAsserts.mins(range), 1e-9);
        assertArrayEquals(new double[] {101, 260, 125}, ChartAsserts.maxes(range), 1e-9);
    }

    @Test
    void theScalingChartShowsEachConfigurationsLimitFractionsByWorkers() {
        List<CellResult> results = List.of(
                limited(new Cell(SchedulerMode.BITMAP_INDEXED, 200, 1, 0), 100_000, 90_000, 110_000, 0.95),
                limited(new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 0), 180_000, 170_000, 190_000, 0.855),
                limited(new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 0, true), 150_000, 150_000, 160_000, 0.7125),
                limited(new Cell(SchedulerMode.CBASE, 1, 1, 0), 10_000, 9_000, 10_000, 0.4),
                limited(new Cell(SchedulerMode.CBASE, 1, 2, 0), 12_000, 12_000, 12_000, 0.3),
                limited(new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 20), 90_000, 90_000, 90_000, 0.5),
                limited(new Cell(SchedulerMode.SEQUENTIAL, 200, 1, 0), 105_000, 105_000, 105_000, 1.0));
        List<CellResult> rows = BenchCharts.scalingRows(results);
        assertEquals(5, rows.size(), "parallel cells at 0% conflicts: " + rows);
        CategoryChart chart = BenchCharts.scalingChart("t - 2 cores, G1", rows, CellResult::limitFraction, "y");
        assertEquals("t - 2 cores, G1", chart.getTitle());
        assertEquals(List.of("bitmap-indexed b=200", "cbase", "bitmap-indexed b=200 timed", RangeBars.RANGE_SERIES),
                chart.getSeriesCollection().stream().map(CategorySeries::getName).toList());
        CategorySeries range = chart.getSeries(RangeBars.RANGE_SERIES);
        assertEquals(List.of("w=1 bitmap-indexed b=200", "w=1 cbase", "w=2 bitmap-indexed b=200",
                        "w=2 bitmap-indexed b=200 timed", "w=2 cbase"),
                range.getXData().stream().map(String::valueOf).toList());
        double n = Double.NaN;
        assertArrayEquals(new double[] {0.95, n, 0.855, n, n}, chart.getSeries("bitmap-indexed b=200").getYData(), 1e-12);
        assertArrayEquals(new double[] {n, 0.4, n, n, 0.3}, chart.getSeries("cbase").getYData(), 1e-12);
        assertArrayEquals(new double[] {n, n, n, 0.7125, n}, chart.getSeries("bitmap-indexed b=200 timed").getYData(), 1e-12);
        // Whiskers: each run's throughput over the same reference.
        assertArrayEquals(new double[] {0.855, 0.36, 0.8075, 0.7125, 0.3}, ChartAsserts.mins(range), 1e-9);
        assertArrayEquals(new double[] {1.045, 0.4, 0.9025, 0.76, 0.3}, ChartAsserts.maxes(range), 1e-9);
    }

    @Test
    void theCeilingChartShowsFractionsOfThePartitionedCeilingAndWritesItsPng(@TempDir Path dir) throws Exception {
        List<CellResult> results = List.of(
                ceiled(new Cell(SchedulerMode.BITMAP_INDEXED, 200, 1, 0), 100_000, 0.8, 0.75, 0.83),
                ceiled(new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 0), 180_000, 0.9, 0.9, 0.97),
                ceiled(new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 20), 90_000, 0.5, 0.5, 0.5),
                ceiled(new Cell(BenchMode.partitioned(), 200, 2, 0), 200_000, Double.NaN, Double.NaN, Double.NaN));
        List<CellResult> rows = BenchCharts.ceilingRows(results);
        assertEquals(results.subList(0, 2), rows, "parallel cells at 0% conflicts with a ceiling fraction");
        CategoryChart chart = BenchCharts.ceilingChart("c", rows);
        assertArrayEquals(new double[] {0.8, 0.9}, chart.getSeries("bitmap-indexed b=200").getYData(), 1e-12);
        // Whiskers: the per-round fractions' own range, not the throughput's.
        assertArrayEquals(new double[] {0.75, 0.9}, ChartAsserts.mins(chart.getSeries(RangeBars.RANGE_SERIES)), 1e-9);
        assertArrayEquals(new double[] {0.83, 0.97}, ChartAsserts.maxes(chart.getSeries(RangeBars.RANGE_SERIES)), 1e-9);
        assertTrue(BenchCharts.write(dir, results, 2, "G1").contains(dir.resolve("ceiling.png")));
        assertTrue(Files.size(dir.resolve("ceiling.png")) > 0);
    }

    private static CellResult ceiled(Cell cell, double median, double ceiling, double ceilingMin, double ceilingMax) {
        return new CellResult(cell, median, median, median, Double.NaN, Double.NaN, ceiling, ceilingMin, ceilingMax,
                0, 1, 2, 3, 0);
    }

    private static CellResult limited(Cell cell, double median, double min, double max, double limit) {
        return new CellResult(cell, median, min, max, Double.NaN, limit, Double.NaN, Double.NaN, Double.NaN, 0, 1, 2, 3, 0);
    }

    @Test
    void noScalingChartFromOneWorkerCount(@TempDir Path dir) throws Exception {
        List<CellResult> one = List.of(runs.get(1), runs.get(2));
        assertEquals(List.of(dir.resolve("fig4-scalability.png"), dir.resolve("fig5-conflicts.png")),
                BenchCharts.write(dir, one, 2, "G1"));
    }

    @Test
    void writesThePng(@TempDir Path dir) throws Exception {
        List<CellResult> withLimits = runs.stream().map(r -> limited(r.cell(), r.throughputCps(), r.minCps(), r.maxCps(),
                r.throughputCps() / 110_000 / r.cell().workers())).toList();
        List<Path> files = BenchCharts.write(dir, withLimits, 2);
        assertEquals(List.of(dir.resolve("fig4-scalability.png"), dir.resolve("fig5-conflicts.png"),
                dir.resolve("scaling.png")), files);
        for (Path f : files) {
            assertTrue(Files.size(f) > 0, f.toString());
        }
    }
}
