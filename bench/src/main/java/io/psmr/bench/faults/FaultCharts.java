package io.psmr.bench.faults;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The timelines of {@code psmr bench faults}, as Aardvark's and RBFT's figures: per scenario, throughput (completed
 * operations per second over the trailing 1 s, at every 100 ms) against time since the load started, with the fault
 * marked by a vertical line at its onset (and one at the injection if it came
 * earlier; for a pause, one at the SIGCONT), and the fault-free level and 0.8 of it as horizontal lines. {@code timeline-<fault>.png} holds one
 * scenario, {@value #ALL_FILE} every scenario, one panel each. Stateless.
 */
public final class FaultCharts {

    /** The file with one panel per scenario. */
    public static final String ALL_FILE = "faults-timeline.png";

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 320;

    private FaultCharts() {
    }

    /** The file of {@code scenario}'s own timeline. */
    public static String fileOf(String scenario) {
        return "timeline-" + scenario + ".png";
    }

    /** Writes each scenario's PNG and {@value #ALL_FILE} into {@code dir}; returns them, the combined one first. */
    public static List<Path> write(Path dir, FaultReport report) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        List<BufferedImage> panels = new ArrayList<>();
        for (ScenarioResult r : report.scenarios()) {
            XYChart chart = chart(r, report);
            BufferedImage image = BitmapEncoder.getBufferedImage(chart);
            panels.add(image);
            Path file = dir.resolve(fileOf(report.comparesSelections() ? r.scenario() + "-" + r.leaderSelection() : r.scenario()));
            ImageIO.write(image, "png", file.toFile());
            files.add(file);
        }
        BufferedImage all = new BufferedImage(WIDTH, HEIGHT * Math.max(1, panels.size()), BufferedImage.TYPE_INT_RGB);
        Graphics2D g = all.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, all.getWidth(), all.getHeight());
            for (int i = 0; i < panels.size(); i++) {
                g.drawImage(panels.get(i), 0, i * HEIGHT, null);
            }
        } finally {
            g.dispose();
        }
        Path combined = dir.resolve(ALL_FILE);
        ImageIO.write(all, "png", combined.toFile());
        files.add(0, combined);
        return files;
    }

    /** One scenario's timeline. */
    static XYChart chart(ScenarioResult r, FaultReport report) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(String.format(Locale.ROOT, "%s on %s - PBFT %d x %d pillars, %s leaders, %d clients, %d cores%s",
                        r.label(report.comparesSelections()), String.join(",", r.targets()), report.replicas(), report.pillars(),
                        report.leaderRotation(), report.clients(), report.cores(), r.ok() ? "" : " - FAILED"))
                .xAxisTitle("seconds since the load started").yAxisTitle("ops/s (1 s window)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setXAxisMin(0.0);
        chart.getStyler().setXAxisTickMarkSpacingHint(80);
        chart.getStyler().setXAxisDecimalPattern("#.#");
        chart.getStyler().setChartTitleFont(chart.getStyler().getChartTitleFont().deriveFont(12f));
        double[] rate = FaultMetrics.trailingRate(r.buckets(), r.bucketMillis());
        double[] x = new double[Math.max(1, rate.length)];
        double[] y = new double[x.length];
        double top = 1;
        for (int i = 0; i < rate.length; i++) {
            x[i] = (i + 1) * r.bucketMillis() / 1000.0; // the end of the bucket: the window that ends there
            y[i] = rate[i];
            top = Math.max(top, rate[i]);
        }
        if (r.faultFreeOps() != null) {
            top = Math.max(top, r.faultFreeOps());
        }
        top *= 1.1;
        XYSeries ops = chart.addSeries("ops/s", x, y);
        ops.setMarker(SeriesMarkers.NONE);
        ops.setLineColor(new Color(31, 119, 180));
        double end = x[x.length - 1];
        if (r.faultFreeOps() != null) {
            level(chart, "fault-free " + FaultReport.rate(r.faultFreeOps()), r.faultFreeOps(), end, Color.GRAY);
            level(chart, "0.8 x fault-free", FaultMetrics.RECOVERED * r.faultFreeOps(), end, new Color(44, 160, 44));
        }
        if (r.injectedMillis() != null && (r.onsetMillis() == null || !r.injectedMillis().equals(r.onsetMillis()))) {
            marker(chart, "injected at " + FaultReport.seconds(r.injectedMillis()), r.injectedMillis(), top, new Color(255, 127, 14));
        }
        if (r.onsetMillis() != null) {
            marker(chart, "onset at " + FaultReport.seconds(r.onsetMillis()), r.onsetMillis(), top, Color.RED);
        }
        if (r.healedMillis() != null) {
            marker(chart, "SIGCONT at " + FaultReport.seconds(r.healedMillis()), r.healedMillis(), top, new Color(148, 103, 189));
        }
        return chart;
    }

    /** A horizontal dashed line at {@code value}. */
    private static void level(XYChart chart, String name, double value, double end, Color color) {
        XYSeries s = chart.addSeries(name, new double[] {0, end}, new double[] {value, value});
        s.setMarker(SeriesMarkers.NONE);
        s.setLineStyle(SeriesLines.DASH_DASH);
        s.setLineColor(color);
    }

    /** A vertical line at {@code millis}. */
    private static void marker(XYChart chart, String name, long millis, double top, Color color) {
        double t = millis / 1000.0;
        XYSeries s = chart.addSeries(name, new double[] {t, t}, new double[] {0, top});
        s.setMarker(SeriesMarkers.NONE);
        s.setLineColor(color);
    }
}
