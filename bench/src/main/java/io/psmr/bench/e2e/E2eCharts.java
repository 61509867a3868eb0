package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;
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
                    bars.add(new RangeBars.Bar(r.mode().cliName() + " b=" + r.batch()
                            + (s.orderings().size() > 1 ? " " + ord.cliName() : ""), series,
                            r.throughputOps() / 1e3, r.minOps() / 1e3, r.maxOps() / 1e3));
                }
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    private static Path save(Path dir, CategoryChart chart) throws IOException {
        Path f = dir.resolve("e2e-throughput.png");
        try (OutputStream png = Files.newOutputStream(f)) {
            BitmapEncoder.saveBitmap(chart, png, BitmapEncoder.BitmapFormat.PNG);
        }
        return f;
    }
}
