package io.psmr.simulation.output;

import io.psmr.simulation.AnalyticModel;
import io.psmr.simulation.CellResult;
import io.psmr.simulation.KeyOverlap;
import io.psmr.simulation.PaperTable1;
import io.psmr.simulation.SimulationConfig;
import io.psmr.simulation.SweepSpec;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Draws a report as a PNG: conflict rate against the swept parameter (bitmap size, log scale,
 * unless a sweep says otherwise), one line per batch and graph size. The line is the analytic
 * model; circles are the simulated cells; black crosses are the paper's Table I points that
 * match a line's batch and graph size.
 */
public final class ChartWriter {

    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728),
        new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
        new Color(0xbcbd22), new Color(0x17becf)};
    private static final int CURVE_POINTS = 80;

    private ChartWriter() {
    }

    /** Writes the chart of {@code report} to {@code file} (a {@code .png} path). */
    public static void write(Report report, Path file) throws IOException {
        // Charts are drawn off-screen; without this AWT looks for a display on a headless server.
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        SweepSpec.Axis axis = report.sweep() != null ? report.sweep().axis() : SweepSpec.Axis.BITS;
        XYChart chart = new XYChartBuilder().width(1000).height(650)
                .title(title(report)).xAxisTitle(axis.title()).yAxisTitle("conflict rate (%)").build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setXAxisLogarithmic(axis == SweepSpec.Axis.BITS);
        chart.getStyler().setXAxisDecimalPattern("#,###");
        chart.getStyler().setYAxisMin(0.0);

        Map<String, List<CellResult>> groups = new LinkedHashMap<>();
        for (CellResult r : report.results()) {
            groups.computeIfAbsent(groupKey(axis, r.config()), k -> new ArrayList<>()).add(r);
        }
        List<double[]> paperPoints = new ArrayList<>();
        int colour = 0;
        for (Map.Entry<String, List<CellResult>> e : groups.entrySet()) {
            Color c = PALETTE[colour++ % PALETTE.length];
            List<CellResult> cells = e.getValue();
            cells.sort((a, b) -> Integer.compare(x(axis, a.config()), x(axis, b.config())));
            double[][] curve = analyticCurve(axis, cells);
            XYSeries line = chart.addSeries(e.getKey() + " analytic", curve[0], curve[1]);
            line.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
            line.setMarker(SeriesMarkers.NONE);
            line.setLineColor(c);
            line.setLineStyle(new BasicStroke(2f));
            double[] sx = new double[cells.size()];
            double[] sy = new double[cells.size()];
            for (int i = 0; i < cells.size(); i++) {
                sx[i] = x(axis, cells.get(i).config());
                sy[i] = cells.get(i).simulatedPct();
            }
            XYSeries sim = chart.addSeries(e.getKey() + " simulated", sx, sy);
            sim.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            sim.setMarker(SeriesMarkers.CIRCLE);
            sim.setMarkerColor(c);
            if (axis == SweepSpec.Axis.BITS) {
                SimulationConfig base = cells.get(0).config();
                for (PaperTable1.Cell p : PaperTable1.CELLS) {
                    if (p.batchSize() == base.batchSize() && p.graphSize() == base.graphSize()
                            && base.keys() == SimulationConfig.DEFAULT_KEYS) {
                        paperPoints.add(new double[] {p.bitmapBits(), p.paperPct()});
                    }
                }
            }
        }
        if (!paperPoints.isEmpty()) {
            double[] px = paperPoints.stream().mapToDouble(p -> p[0]).toArray();
            double[] py = paperPoints.stream().mapToDouble(p -> p[1]).toArray();
            XYSeries paper = chart.addSeries("paper, Table I", px, py);
            paper.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            paper.setMarker(SeriesMarkers.CROSS);
            paper.setMarkerColor(Color.BLACK);
        }
        try (OutputStream png = Files.newOutputStream(file)) {
            BitmapEncoder.saveBitmap(chart, png, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static String title(Report report) {
        SimulationConfig c = report.results().get(0).config();
        return switch (report.kind()) {
            case TABLE1 -> "Conflict rate, Table I (K = 10^9, " + c.iterations() + " iterations per point)";
            default -> "Conflict rate (K = " + c.keys() + ", " + c.iterations() + " iterations per point)";
        };
    }

    /** Lines are labelled by the parameters that do not vary along the x axis. */
    private static String groupKey(SweepSpec.Axis axis, SimulationConfig c) {
        return switch (axis) {
            case BITS -> "B=" + c.batchSize() + " g=" + c.graphSize();
            case BATCH -> "m=" + c.bitmapBits() + " g=" + c.graphSize();
            case GRAPH -> "m=" + c.bitmapBits() + " B=" + c.batchSize();
        };
    }

    private static int x(SweepSpec.Axis axis, SimulationConfig c) {
        return switch (axis) {
            case BITS -> c.bitmapBits();
            case BATCH -> c.batchSize();
            case GRAPH -> c.graphSize();
        };
    }

    /**
     * The analytic line: dense and spanning a factor 2 beyond the cells for bitmap sizes (the
     * model is cheap there, its key overlap does not depend on m); at the cells themselves for
     * batch and graph sizes, where each point needs its own key overlap.
     */
    private static double[][] analyticCurve(SweepSpec.Axis axis, List<CellResult> cells) {
        if (axis != SweepSpec.Axis.BITS) {
            double[] xs = new double[cells.size()];
            double[] ys = new double[cells.size()];
            for (int i = 0; i < cells.size(); i++) {
                xs[i] = x(axis, cells.get(i).config());
                ys[i] = 100 * cells.get(i).analytic().bitmap();
            }
            return new double[][] {xs, ys};
        }
        SimulationConfig base = cells.get(0).config();
        KeyOverlap overlap = KeyOverlap.of(base);
        double lo = Math.log(Math.max(1, cells.get(0).config().bitmapBits() / 2.0));
        double hi = Math.log(cells.get(cells.size() - 1).config().bitmapBits() * 2.0);
        double[] xs = new double[CURVE_POINTS];
        double[] ys = new double[CURVE_POINTS];
        for (int i = 0; i < CURVE_POINTS; i++) {
            int m = (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(Math.exp(lo + (hi - lo) * i / (CURVE_POINTS - 1)))));
            xs[i] = m;
            ys[i] = 100 * AnalyticModel.rates(base.withBitmapBits(m), overlap).bitmap();
        }
        return new double[][] {xs, ys};
    }
}
