package io.psmr.bench.scheduler;

import io.psmr.bench.chart.RangeBars;
import io.psmr.bench.stats.JvmCollector;
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
 *   <li>{@code fig5-conflicts.png}: the bitmap configurations at each conflict level (Fig. 5);</li>
 *   <li>{@code scaling.png}, when at least two worker counts were measured: each parallel
 *       configuration's (COS baselines and the partitioned ceiling included) fraction of the limit at
 *       0% conflicts, by worker count;</li>
 *   <li>{@code ceiling.png}, likewise: each scheduler's fraction of the {@code partitioned} ceiling (the
 *       same commands split by key over as many threads, no scheduler) at 0% conflicts, by worker count.</li>
 * </ul>
 * Every title names the core count and the garbage collector.
 */
public final class BenchCharts {

    private BenchCharts() {
    }

    /** Writes the charts that the results allow into {@code dir}, naming this JVM's collector; returns the files written. */
    public static List<Path> write(Path dir, List<CellResult> results, int cores) throws IOException {
        return write(dir, results, cores, JvmCollector.name());
    }

    /** Writes the charts that the results allow into {@code dir}; returns the files written. */
    public static List<Path> write(Path dir, List<CellResult> results, int cores, String collector) throws IOException {
        String machine = " - " + cores + " cores, " + collector;
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        List<Path> written = new ArrayList<>();
        List<CellResult> fig4 = results.stream()
                .filter(r -> r.cell().conflictPct() == 0 && r.cell().mode().parallel()).toList();
        if (!fig4.isEmpty()) {
            Path f = dir.resolve("fig4-scalability.png");
            save(chart("Thread scalability, conflict-free (Fig. 4)" + machine, fig4, false), f);
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
            save(chart("Bitmap scheduling with conflicts (Fig. 5)" + machine, fig5, true), f);
            written.add(f);
        }
        List<CellResult> scaling = scalingRows(results);
        if (scaling.stream().map(r -> r.cell().workers()).distinct().count() >= 2) {
            Path f = dir.resolve("scaling.png");
            save(scalingChart("Fraction of the limit by workers, conflict-free" + machine, scaling,
                    CellResult::limitFraction, "fraction of the limit (median, min-max)"), f);
            written.add(f);
        }
        List<CellResult> ceiling = ceilingRows(results);
        if (ceiling.stream().map(r -> r.cell().workers()).distinct().count() >= 2) {
            Path f = dir.resolve("ceiling.png");
            save(ceilingChart("Fraction of the partitioned ceiling by workers, conflict-free" + machine, ceiling), f);
            written.add(f);
        }
        return written;
    }

    /** The rows of the scaling chart: parallel cells at 0% conflicts with a limit fraction. */
    static List<CellResult> scalingRows(List<CellResult> results) {
        return results.stream().filter(r -> r.cell().conflictPct() == 0 && r.cell().mode().parallel()
                && Double.isFinite(r.limitFraction()) && r.throughputCps() > 0).toList();
    }

    /** The rows of the ceiling chart: parallel cells at 0% conflicts with a ceiling fraction. */
    static List<CellResult> ceilingRows(List<CellResult> results) {
        return results.stream().filter(r -> r.cell().conflictPct() == 0 && r.cell().mode().parallel()
                && Double.isFinite(r.ceilingFraction()) && r.throughputCps() > 0).toList();
    }

    /**
     * A fraction ({@code fraction}: of the limit, or of the ceiling; median, whisker from the slowest to the
     * fastest run) per worker count:
     * bars grouped by worker count, one series (colour) per configuration (mode and batch, and
     * {@code timed} when summaries were built in the timed loop).
     */
    static CategoryChart scalingChart(String title, List<CellResult> rows,
                                      java.util.function.ToDoubleFunction<CellResult> fraction, String yAxis) {
        List<RangeBars.Bar> bars = new ArrayList<>();
        rows.stream().sorted(Comparator.comparingInt((CellResult r) -> r.cell().workers())).forEach(r -> {
            Cell c = r.cell();
            String series = scalingSeries(c);
            // A run's fraction scales with its throughput (same reference, same divisor); clamped
            // so that rounding never puts a whisker end past the median.
            double f = fraction.applyAsDouble(r);
            double perCps = f / r.throughputCps();
            bars.add(new RangeBars.Bar("w=" + c.workers() + " " + series, series, f,
                    Math.min(f, r.minCps() * perCps), Math.max(f, r.maxCps() * perCps)));
        });
        return fractionChart(title, yAxis, bars);
    }

    /**
     * The ceiling fraction per worker count: median over rounds, whisker from the lowest to the highest round
     * (each round's fraction is over the ceiling's run of that round, so the whisker is the fraction's own range).
     */
    static CategoryChart ceilingChart(String title, List<CellResult> rows) {
        List<RangeBars.Bar> bars = new ArrayList<>();
        rows.stream().sorted(Comparator.comparingInt((CellResult r) -> r.cell().workers())).forEach(r -> {
            String series = scalingSeries(r.cell());
            bars.add(new RangeBars.Bar("w=" + r.cell().workers() + " " + series, series, r.ceilingFraction(),
                    r.ceilingMin(), r.ceilingMax()));
        });
        return fractionChart(title, "fraction of the partitioned ceiling (median, min-max)", bars);
    }

    /** Bars of fractions, grouped by worker count, one series (colour) per configuration. */
    private static CategoryChart fractionChart(String title, String yAxis, List<RangeBars.Bar> bars) {
        CategoryChart chart = new CategoryChartBuilder().width(1100).height(560).title(title)
                .xAxisTitle("workers, configuration").yAxisTitle(yAxis).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("0.00");
        RangeBars.plot(chart, bars);
        return chart;
    }

    /** The legend entry of a cell in the scaling chart, e.g. {@code bitmap-indexed b=200 timed}. */
    static String scalingSeries(Cell c) {
        return c.label() + (c.batch() > 1 ? " b=" + c.batch() : "") + (c.summaryTimed() ? " timed" : "");
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
            String label = c.label() + (c.batch() > 1 ? " b=" + c.batch() : "")
                    + (byConflict ? " " + c.conflictPct() + "%" : "") + (c.summaryTimed() ? " timed" : "");
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
