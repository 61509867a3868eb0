package io.psmr.bench.clusterbench;

import io.psmr.bench.chart.RangeBars;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The charts of {@code psmr bench cluster}: {@value #THROUGHPUT_FILE}, throughput per ordering and client count, the
 * process cluster beside the one-JVM reference; {@value #CPU_FILE}, CPU per operation of the cluster and of the load
 * generator. Bars are medians with a whisker from the lowest to the highest run ({@link RangeBars}). Stateless.
 */
public final class ClusterBenchCharts {

    /** The throughput chart. */
    public static final String THROUGHPUT_FILE = "throughput.png";
    /** The CPU-per-operation chart. */
    public static final String CPU_FILE = "cpu-per-op.png";

    private ClusterBenchCharts() {
    }

    /** Writes both charts into {@code dir}; returns them. */
    public static List<Path> write(Path dir, ClusterBenchReport report) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        Files.createDirectories(dir);
        Path throughput = dir.resolve(THROUGHPUT_FILE);
        save(throughput(report), throughput);
        Path cpu = dir.resolve(CPU_FILE);
        save(cpu(report), cpu);
        return List.of(throughput, cpu);
    }

    private static void save(CategoryChart chart, Path file) throws IOException {
        try (OutputStream png = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, png, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    static CategoryChart throughput(ClusterBenchReport report) {
        CategoryChart chart = chart("Throughput: process cluster and one JVM, " + report.settings().cores() + " cores",
                "ops/s (median, min-max)");
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (ClusterBenchResult r : report.results()) {
            String at = r.ordering() + " c=" + r.clients();
            if (Double.isFinite(r.opsPerSecond())) {
                bars.add(new RangeBars.Bar(at + " processes", "processes", r.opsPerSecond(), r.minOps(), r.maxOps()));
            }
            if (Double.isFinite(r.referenceOps())) {
                bars.add(new RangeBars.Bar(at + " one JVM", "one JVM", r.referenceOps(),
                        Math.min(r.referenceOps(), r.referenceMinOps()), Math.max(r.referenceOps(), r.referenceMaxOps())));
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    static CategoryChart cpu(ClusterBenchReport report) {
        CategoryChart chart = chart("CPU per operation: cluster and load generator, " + report.settings().cores()
                + " cores", "CPU us per operation (cluster: median, min-max)");
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (ClusterBenchResult r : report.results()) {
            String at = r.ordering() + " c=" + r.clients();
            if (Double.isFinite(r.clusterCpuMicros())) {
                bars.add(new RangeBars.Bar(at + " cluster", "cluster", r.clusterCpuMicros(), r.minClusterCpu(),
                        r.maxClusterCpu()));
            }
            if (Double.isFinite(r.loadCpuMicros())) {
                bars.add(new RangeBars.Bar(at + " load", "load generator", r.loadCpuMicros(), r.loadCpuMicros(),
                        r.loadCpuMicros()));
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    private static CategoryChart chart(String title, String yAxis) {
        CategoryChart chart = new CategoryChartBuilder().width(1100).height(560).title(title)
                .xAxisTitle("ordering, clients").yAxisTitle(yAxis).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,###");
        return chart;
    }
}
