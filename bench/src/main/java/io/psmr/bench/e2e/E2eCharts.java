package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.bench.chart.RangeBars;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * {@code e2e-throughput.png}: median throughput per mode (kops/s) with a whisker from the slowest to the
 * fastest measured run, one colour per ordering, the core count in the title.
 */
public final class E2eCharts {

    private E2eCharts() {
    }

    /** Writes the chart into {@code dir}; returns the file. */
    public static Path write(Path dir, List<E2eResult> results, E2eSettings s) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        return save(dir, chart(results, s));
    }

    /** The chart, one bar per ordering and mode; see {@link RangeBars}. */
    static CategoryChart chart(List<E2eResult> results, E2eSettings s) {
        CategoryChart chart = new CategoryChartBuilder().width(900).height(500)
                .title("End to end: " + s.clients() + " clients -> proxy -> "
                        + s.orderings().stream().map(OrderingProtocol::cliName).collect(java.util.stream.Collectors.joining("/"))
                        + " -> 1 replica - "
                        + s.cores() + " cores")
                .xAxisTitle("mode").yAxisTitle("throughput (kops/s, median, min-max)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,###.#");
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (OrderingProtocol ord : s.orderings()) {
            String series = ord.cliName() + ", " + s.workers() + (s.workers() == 1 ? " worker" : " workers");
            for (E2eResult r : results) {
                if (r.ordering() == ord) {
                    String point = s.sweep().given() ? " " + r.variant().label().replaceFirst("b=\\d+", "b=" + r.batch())
                            : " b=" + r.batch();
                    bars.add(new RangeBars.Bar(r.modeName() + point
                            + (s.orderings().size() > 1 ? " " + ord.cliName() : ""), series,
                            r.throughputOps() / 1e3, r.minOps() / 1e3, r.maxOps() / 1e3));
                }
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    /**
     * The sweep's charts, when a sweep flag was given: with pbft measured, {@code e2e-pillars.png} (throughput per core
     * per pillar count, one colour per leader rotation and batch) and {@code e2e-leader-bytes.png} (the leader's bytes
     * per operation, the same bars); with partitions, {@code e2e-cross-partition.png} (throughput per cross-partition
     * share, one colour per ordering). Every bar has its min-max whisker ({@link RangeBars}). Returns the files.
     */
    public static List<Path> writeSweep(Path dir, List<E2eResult> results, E2eSettings s) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        List<Path> files = new ArrayList<>();
        if (!s.sweep().given()) {
            return files;
        }
        if (s.orderings().contains(OrderingProtocol.PBFT)) {
            files.add(save(dir, pillarsChart(results, s), "e2e-pillars.png"));
            files.add(save(dir, leaderBytesChart(results, s), "e2e-leader-bytes.png"));
        }
        if (s.sweep().partitions() > 0) {
            files.add(save(dir, crossPartitionChart(results, s), "e2e-cross-partition.png"));
            if (s.sweep().crossPcts().contains(0) && s.sweep().crossPcts().size() > 1) {
                files.add(save(dir, crossPartitionRelativeChart(results, s), "e2e-cross-partition-relative.png"));
            }
        }
        return files;
    }

    private static CategoryChart chart(String title, String x, String y) {
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(520).title(title).xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,###.#");
        chart.getStyler().setXAxisLabelRotation(45);
        return chart;
    }

    /** A pbft bar's category: its sweep point, and its mode when several modes ran. */
    private static String pbftCategory(E2eResult r, E2eSettings s) {
        return r.variant().label().replaceFirst("b=\\d+", "b=" + r.batch()) + (s.modes().size() > 1 ? " " + r.modeName() : "");
    }

    private static String pbftSeries(E2eResult r) {
        return r.variant().rotationName() + " leaders, batch " + r.batch();
    }

    /** COP Fig. 7's shape on this machine: pbft's throughput per core as pillars are added. */
    static CategoryChart pillarsChart(List<E2eResult> results, E2eSettings s) {
        CategoryChart chart = chart("pbft (f=1, 4 replicas in one JVM): throughput per core by pillars - " + s.cores() + " cores",
                "pillars per replica (Np), leaders, batch", "kops/s per core (median, min-max)");
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (E2eResult r : results) {
            if (r.ordering() == OrderingProtocol.PBFT) {
                bars.add(new RangeBars.Bar(pbftCategory(r, s), pbftSeries(r), r.throughputOps() / 1e3 / s.cores(),
                        r.minOps() / 1e3 / s.cores(), r.maxOps() / 1e3 / s.cores()));
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    /** COP Fig. 8's question: bytes the leader sends per operation, fixed against rotating leaders. */
    static CategoryChart leaderBytesChart(List<E2eResult> results, E2eSettings s) {
        CategoryChart chart = chart("pbft: leader's outgoing bytes per operation (fixed: the primary; rotating: the most of "
                + "any replica)", "pillars per replica (Np), leaders, batch", "bytes per operation (median, min-max)");
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (E2eResult r : results) {
            if (r.ordering() == OrderingProtocol.PBFT && !Double.isNaN(r.leaderBytesPerOp())) {
                bars.add(new RangeBars.Bar(pbftCategory(r, s), pbftSeries(r), r.leaderBytesPerOp(), r.leaderBytesMin(),
                        r.leaderBytesMax()));
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    /** MLBFT Fig. 4.10's question: throughput as the share of two-partition commands grows. */
    static CategoryChart crossPartitionChart(List<E2eResult> results, E2eSettings s) {
        CategoryChart chart = chart("Throughput by share of two-partition MULTI_PUTs (" + s.sweep().partitions()
                + " key partitions) - " + s.cores() + " cores", "two-partition MULTI_PUTs, % of operations",
                "throughput (kops/s, median, min-max)");
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (E2eResult r : results) {
            String series = crossSeries(r, s);
            bars.add(new RangeBars.Bar(r.variant().crossPct() + "% " + series, series, r.throughputOps() / 1e3,
                    r.minOps() / 1e3, r.maxOps() / 1e3));
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    /** A cross-partition bar's series: everything of its point but the share. */
    private static String crossSeries(E2eResult r, E2eSettings s) {
        E2eVariant v = r.variant();
        return r.ordering().cliName() + (v.pillars() > 0 ? " Np=" + v.pillars() + " " + v.rotationName() : "")
                + " b=" + r.batch() + (s.modes().size() > 1 && r.ordering() != OrderingProtocol.MLBFT ? " " + r.modeName() : "");
    }

    /**
     * The same bars over each series' own median at 0 %: the shape MLBFT's Fig. 4.10 shows falling (its fit
     * {@code (1 + x)^-0.133}: 0.54 at 100 %), comparable across orderings of very different speed.
     */
    static CategoryChart crossPartitionRelativeChart(List<E2eResult> results, E2eSettings s) {
        CategoryChart chart = chart("Throughput relative to 0% two-partition MULTI_PUTs (" + s.sweep().partitions()
                + " key partitions) - " + s.cores() + " cores", "two-partition MULTI_PUTs, % of operations",
                "throughput / median at 0% (median, min-max)");
        Map<String, Double> base = new HashMap<>();
        for (E2eResult r : results) {
            if (r.variant().crossPct() == 0) {
                base.put(crossSeries(r, s), r.throughputOps());
            }
        }
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (E2eResult r : results) {
            String series = crossSeries(r, s);
            Double b = base.get(series);
            if (b != null && b > 0) {
                bars.add(new RangeBars.Bar(r.variant().crossPct() + "% " + series, series, r.throughputOps() / b,
                        r.minOps() / b, r.maxOps() / b));
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    private static Path save(Path dir, CategoryChart chart) throws IOException {
        return save(dir, chart, "e2e-throughput.png");
    }

    private static Path save(Path dir, CategoryChart chart, String name) throws IOException {
        Path f = dir.resolve(name);
        try (OutputStream png = Files.newOutputStream(f)) {
            BitmapEncoder.saveBitmap(chart, png, BitmapEncoder.BitmapFormat.PNG);
        }
        return f;
    }
}
