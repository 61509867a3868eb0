package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/** {@code e2e-throughput.png}: median throughput per mode (kops/s), one series per ordering, the core count in the title. */
public final class E2eCharts {

    private E2eCharts() {
    }

    /** Writes the chart into {@code dir}; returns the file. */
    public static Path write(Path dir, List<E2eResult> results, E2eSettings s) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        CategoryChart chart = new CategoryChartBuilder().width(900).height(500)
                .title("End to end: " + s.clients() + " clients -> proxy -> "
                        + s.orderings().stream().map(OrderingProtocol::cliName).collect(java.util.stream.Collectors.joining("/"))
                        + " -> 1 replica - "
                        + s.cores() + " cores")
                .xAxisTitle("mode").yAxisTitle("throughput (kops/s, median)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,###.#");
        for (OrderingProtocol ord : s.orderings()) {
            List<E2eResult> rs = results.stream().filter(r -> r.ordering() == ord).toList();
            List<String> labels = rs.stream().map(r -> r.mode().cliName() + " b=" + r.batch()).toList();
            List<Double> ys = rs.stream().map(r -> r.throughputOps() / 1e3).toList();
            chart.addSeries(ord.cliName() + ", " + s.workers() + (s.workers() == 1 ? " worker" : " workers"), labels, ys);
        }
        Path f = dir.resolve("e2e-throughput.png");
        try (OutputStream png = Files.newOutputStream(f)) {
            BitmapEncoder.saveBitmap(chart, png, BitmapEncoder.BitmapFormat.PNG);
        }
        return f;
    }
}
