package io.psmr.bench.scheduler;

import io.psmr.bench.chart.RangeBars;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * PNG charts in the shape of the paper's figures: bars of median throughput (kcmd/s) with a
 * whisker from the slowest to the fastest measured run, grouped by configuration, one bar (and colour)
 * per worker count; see {@link RangeBars}.
 * <ul>
 *   <li>{@code fig4-scalability.png}: every configuration at 0% conflicts (Fig. 4), the COS baselines
 *       (cos-coarse, cos-lockfree) beside CBASE;</li>
 *   <li>{@code fig5-conflicts.png}: the bitmap configurations at each conflict level (Fig. 5).</li>
 * </ul>
 */
public final class BenchCharts {

    private BenchCharts() {
    }

    /** Writes the charts that the results allow into {@code dir}; returns the files written. */
    public static List<Path> write(Path dir, List<CellResult> results, int cores) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        List<Path> written = new ArrayList<>();
        List<CellResult> fig4 = results.stream()
                .filter(r -> r.cell().conflictPct() == 0 && r.cell().mode().parallel()).toList();
        if (!fig4.isEmpty()) {
            Path f = dir.resolve("fig4-scalability.png");
            save(chart("Thread scalability, conflict-free (Fig. 4) - " + cores + " cores", fig4, false), f);
            written.add(f);
        }
        List<CellResult> fig5 = results.stream()
                .filter(r -> r.cell().psmrMode() != null && r.cell().mode().parallel()
                        && r.cell().psmrMode().conflictMode().usesBitmaps() && r.cell().batch() > 1)
                .sorted(Comparator.comparingInt((CellResult r) -> r.cell().mode().order()).thenComparingInt(r -> r.cell().batch())
                        .thenComparingInt(r -> r.cell().conflictPct()))
                .toList();
        if (!fig5.isEmpty()) {
            Path f = dir.resolve("fig5-conflicts.png");
            save(chart("Bitmap scheduling with conflicts (Fig. 5) - " + cores + " cores", fig5, true), f);
            written.add(f);
        }
        return written;
    }

    static CategoryChart chart(String title, List<CellResult> rows, boolean byConflict) {
        CategoryChart chart = new CategoryChartBuilder().width(1100).height(560).title(title)
                .xAxisTitle("configuration, workers").yAxisTitle("throughput (kcmd/s, median, min-max)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,###");
        // Grouped by configuration, worker counts ascending within it; one colour per worker count.
        Map<String, Map<Integer, CellResult>> clusters = new LinkedHashMap<>();
        for (CellResult r : rows) {
            Cell c = r.cell();
            String label = c.mode().cliName() + (c.batch() > 1 ? " b=" + c.batch() : "")
                    + (byConflict ? " " + c.conflictPct() + "%" : "");
            clusters.computeIfAbsent(label, k -> new TreeMap<>()).put(c.workers(), r);
        }
        List<RangeBars.Bar> bars = new ArrayList<>();
        clusters.forEach((label, byWorkers) -> byWorkers.forEach((w, r) -> bars.add(new RangeBars.Bar(
                label + " w=" + w, w + (w == 1 ? " thread" : " threads"),
                r.throughputCps() / 1e3, r.minCps() / 1e3, r.maxCps() / 1e3))));
        RangeBars.plot(chart, bars);
        return chart;
    }

    private static void save(CategoryChart chart, Path file) throws IOException {
        try (OutputStream png = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, png, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
