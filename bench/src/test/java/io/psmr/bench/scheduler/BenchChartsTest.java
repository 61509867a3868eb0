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
        return new CellResult(new Cell(mode, 64, workers, 0), median, min, max, Double.NaN, Double.NaN, 0, 1, 2, 3);
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
    void writesThePng(@TempDir Path dir) throws Exception {
        List<Path> files = BenchCharts.write(dir, runs, 2);
        assertEquals(List.of(dir.resolve("fig4-scalability.png"), dir.resolve("fig5-conflicts.png")), files);
        for (Path f : files) {
            assertTrue(Files.size(f) > 0, f.toString());
        }
    }
}
