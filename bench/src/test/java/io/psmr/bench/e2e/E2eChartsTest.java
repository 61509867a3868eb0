package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.scheduler.SchedulerMode;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.chart.ChartAsserts;
import io.psmr.bench.chart.RangeBars;
import java.nio.file.Files;
import io.psmr.bench.load.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;

class E2eChartsTest {

    private static E2eResult result(OrderingProtocol ord, SchedulerMode mode, double median, double min, double max) {
        return new E2eResult(ord, mode, 64, median, min, max, Double.NaN, Double.NaN, 1, 10, 20, 30, 0, 3, Double.NaN);
    }

    @Test
    void everyBarCarriesTheMinAndMaxOfItsRuns(@TempDir Path dir) throws Exception {
        List<OrderingProtocol> orderings = List.of(OrderingProtocol.LOCAL, OrderingProtocol.RING_PAXOS);
        List<SchedulerMode> modes = List.of(SchedulerMode.CBASE, SchedulerMode.BITMAP_INDEXED);
        E2eSettings s = new E2eSettings(orderings, modes,
                new WorkloadSpec(8, 1000, 0.5, 0.05, 4, 64, Duration.ofSeconds(1), 0, 42), 2, 64, 4, 0, 1024, 3,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 42, 2, dir);
        List<E2eResult> results = List.of(
                result(OrderingProtocol.LOCAL, SchedulerMode.CBASE, 10_000, 9_000, 12_000),
                result(OrderingProtocol.LOCAL, SchedulerMode.BITMAP_INDEXED, 40_000, 30_000, 41_000),
                result(OrderingProtocol.RING_PAXOS, SchedulerMode.CBASE, 8_000, 8_000, 8_000),
                result(OrderingProtocol.RING_PAXOS, SchedulerMode.BITMAP_INDEXED, 20_000, 5_000, 22_000));
        CategoryChart chart = E2eCharts.chart(results, s);
        assertEquals(List.of("local, 2 workers", "ringpaxos, 2 workers", RangeBars.RANGE_SERIES),
                chart.getSeriesCollection().stream().map(CategorySeries::getName).toList());
        CategorySeries range = chart.getSeries(RangeBars.RANGE_SERIES);
        assertEquals(4, List.copyOf(range.getXData()).size());
        assertArrayEquals(new double[] {10, 40, Double.NaN, Double.NaN},
                chart.getSeries("local, 2 workers").getYData(), 1e-9);
        assertArrayEquals(new double[] {9, 30, 8, 5}, ChartAsserts.mins(range), 1e-9);
        assertArrayEquals(new double[] {12, 41, 8, 22}, ChartAsserts.maxes(range), 1e-9);
        Path png = E2eCharts.write(dir, results, s);
        assertTrue(Files.size(png) > 0);
    }
}
