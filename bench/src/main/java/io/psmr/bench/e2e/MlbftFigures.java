package io.psmr.bench.e2e;

import io.psmr.bench.chart.RangeBars;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.scheduler.SchedulerMode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The outputs of {@code psmr bench mlbft}: rows per (figure, workload, configuration), results.csv, summary.md, the
 * table, and the thesis' Figs. 4.10, 4.11, 4.13 and 4.16 as bar charts with min-max whiskers.
 */
public final class MlbftFigures {

    /** The exact header of results.csv. */
    public static final String CSV_HEADER = "figure,configuration,ordering,execution,clients,read_pct,cross_border_pct,"
            + "throughput_ops,throughput_min_ops,throughput_max_ops,ratio_vs_sl,ratio_vs_cop_bitmap,deadlocks,deadlocks_min,"
            + "deadlocks_max,mean_batch,p50_us,p99_us,runs,cores";

    /** MLBFT, COP-PBFT with the bitmap scheduler, COP-PBFT executing sequentially (the thesis' SL), in report order. */
    static final List<String> CONFIGURATIONS = List.of("MLBFT", "COP-PBFT bitmap", "SL (COP-PBFT sequential)");

    private MlbftFigures() {
    }

    /** One workload of a figure: its clients and read share, and the e2e settings that run it. */
    public record Workload(String figure, int clients, int readPct, E2eSettings settings) {
    }

    /**
     * One configuration at one point of a figure.
     *
     * @param ratioVsSl         throughput over SL's at the same point, same invocation
     * @param ratioVsCopBitmap  throughput over COP-PBFT bitmap's at the same point, same invocation
     * @param deadlocks         MLBFT: the deadlocks a replica resolved per run (median, min, max); NaN otherwise
     */
    public record Row(String figure, String configuration, E2eResult result, int clients, int readPct, int crossPct,
                      double ratioVsSl, double ratioVsCopBitmap, double deadlocks, double deadlocksMin, double deadlocksMax) {
    }

    /** The rows of one workload's results. */
    static List<Row> rows(Workload w, List<E2eResult> results) {
        List<Row> out = new ArrayList<>();
        for (E2eResult r : results) {
            int x = r.variant().crossPct();
            E2eResult sl = find(results, x, SchedulerMode.SEQUENTIAL);
            E2eResult cop = find(results, x, SchedulerMode.BITMAP_INDEXED);
            out.add(new Row(w.figure(), configuration(r), r, w.clients(), w.readPct(), x,
                    sl == null ? Double.NaN : r.throughputOps() / sl.throughputOps(),
                    cop == null ? Double.NaN : r.throughputOps() / cop.throughputOps(), r.deadlocks(), r.deadlocksMin(),
                    r.deadlocksMax()));
        }
        out.sort((a, b) -> a.crossPct() != b.crossPct() ? Integer.compare(a.crossPct(), b.crossPct())
                : Integer.compare(CONFIGURATIONS.indexOf(a.configuration()), CONFIGURATIONS.indexOf(b.configuration())));
        return out;
    }

    private static E2eResult find(List<E2eResult> results, int crossPct, SchedulerMode mode) {
        for (E2eResult r : results) {
            if (r.ordering() == OrderingProtocol.PBFT && r.mode() == mode && r.variant().crossPct() == crossPct) {
                return r;
            }
        }
        return null;
    }

    static String configuration(E2eResult r) {
        if (r.ordering() == OrderingProtocol.MLBFT) {
            return CONFIGURATIONS.get(0);
        }
        return r.mode() == SchedulerMode.SEQUENTIAL ? CONFIGURATIONS.get(2) : CONFIGURATIONS.get(1);
    }

    /** results.csv: the header, then one row per (figure, workload, configuration). NaN cells are empty. */
    public static String csv(List<Row> rows, int cores) {
        StringBuilder b = new StringBuilder(CSV_HEADER).append('\n');
        for (Row w : rows) {
            E2eResult r = w.result();
            b.append(w.figure()).append(',').append(w.configuration()).append(',').append(r.ordering().cliName()).append(',')
                    .append(r.modeName()).append(',').append(w.clients()).append(',').append(w.readPct()).append(',')
                    .append(w.crossPct()).append(',').append(Math.round(r.throughputOps())).append(',')
                    .append(Math.round(r.minOps())).append(',').append(Math.round(r.maxOps())).append(',')
                    .append(num(w.ratioVsSl(), "%.3f")).append(',').append(num(w.ratioVsCopBitmap(), "%.3f")).append(',')
                    .append(num(w.deadlocks(), "%.0f")).append(',').append(num(w.deadlocksMin(), "%.0f")).append(',')
                    .append(num(w.deadlocksMax(), "%.0f")).append(',').append(num(r.meanBatch(), "%.1f")).append(',')
                    .append(r.p50Micros()).append(',').append(r.p99Micros()).append(',').append(r.runs()).append(',')
                    .append(cores).append('\n');
        }
        return b.toString();
    }

    /** The table on stdout. */
    static void table(List<Row> rows, PrintWriter out) {
        out.printf(Locale.ROOT, "%-5s %-24s %7s %5s %5s %24s %6s %8s %22s %7s %8s%n", "fig", "configuration", "clients",
                "read%", "x%", "kops/s median [min-max]", "x SL", "x COP", "deadlocks [min-max]", "mean b", "p50 us");
        for (Row w : rows) {
            E2eResult r = w.result();
            out.printf(Locale.ROOT, "%-5s %-24s %7d %5d %5d %24s %6s %8s %22s %7.1f %8d%n", w.figure(), w.configuration(),
                    w.clients(), w.readPct(), w.crossPct(), String.format(Locale.ROOT, "%.2f [%.2f-%.2f]",
                            r.throughputOps() / 1e3, r.minOps() / 1e3, r.maxOps() / 1e3),
                    num(w.ratioVsSl(), "%.2f"), num(w.ratioVsCopBitmap(), "%.2f"), Double.isNaN(w.deadlocks()) ? "-"
                            : String.format(Locale.ROOT, "%.0f [%.0f-%.0f]", w.deadlocks(), w.deadlocksMin(), w.deadlocksMax()),
                    r.meanBatch(), r.p50Micros());
        }
        out.flush();
    }

    /** Writes results.csv, summary.md and the charts of the figures that ran; returns the files. */
    static List<Path> write(Path dir, List<Row> rows, E2eSettings first, int cores) throws IOException {
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        Path csv = dir.resolve("results.csv");
        Files.writeString(csv, csv(rows, cores));
        files.add(csv);
        Path md = dir.resolve("summary.md");
        Files.writeString(md, summary(rows, first, cores));
        files.add(md);
        if (rows.stream().anyMatch(r -> r.figure().equals("4.10"))) {
            files.add(save(dir, crossBorderChart(rows, cores), "fig-4.10-cross-border.png"));
            files.add(save(dir, deadlocksChart(rows, cores), "fig-4.13-deadlocks.png"));
        }
        if (rows.stream().anyMatch(r -> r.figure().equals("4.11"))) {
            files.add(save(dir, clientsChart(rows, cores), "fig-4.11-clients.png"));
        }
        if (rows.stream().anyMatch(r -> r.figure().equals("4.16"))) {
            files.add(save(dir, readShareChart(rows, cores), "fig-4.16-read-share.png"));
        }
        return files;
    }

    /** summary.md: the machine and settings, then one table per figure. */
    static String summary(List<Row> rows, E2eSettings s, int cores) {
        StringBuilder b = new StringBuilder("# psmr bench mlbft\n\n");
        b.append(String.format(Locale.ROOT, "Machine: **%d cores**, Java %s. 4 replicas (f = 1) in one JVM; MLBFT with %d "
                        + "partitions (one PBFT instance and one worker each), COP-PBFT with %d pillars; %d keys (key k in "
                        + "partition k mod %d), batches of at most %d (MLBFT: of one set of partitions each), window %d, %d measured runs of "
                        + "%d ms after a %d ms warm-up per configuration, interleaved. Medians with [min-max].%n%n",
                cores, System.getProperty("java.version"), s.sweep().partitions(), s.sweep().pillars().get(0), s.keys(),
                s.sweep().partitions(), s.batch(), s.window(), s.runs(), s.duration().toMillis(), s.warmup().toMillis()));
        for (String fig : List.of("4.10", "4.11", "4.16")) {
            List<Row> of = rows.stream().filter(r -> r.figure().equals(fig)).toList();
            if (of.isEmpty()) {
                continue;
            }
            b.append("## Fig. ").append(fig).append(fig.equals("4.10") ? " and 4.13" : "").append(" (").append(cores)
                    .append(" cores)\n\n");
            b.append("| configuration | clients | read % | cross-border % | kops/s [min-max] | x SL | x COP bitmap | "
                    + "deadlocks [min-max] | mean batch | p50 us |\n|---|---:|---:|---:|---|---:|---:|---|---:|---:|\n");
            for (Row w : of) {
                E2eResult r = w.result();
                b.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %.2f [%.2f-%.2f] | %s | %s | %s | %.1f | %d |%n",
                        w.configuration(), w.clients(), w.readPct(), w.crossPct(), r.throughputOps() / 1e3,
                        r.minOps() / 1e3, r.maxOps() / 1e3, num(w.ratioVsSl(), "%.2f"), num(w.ratioVsCopBitmap(), "%.2f"),
                        Double.isNaN(w.deadlocks()) ? "-" : String.format(Locale.ROOT, "%.0f [%.0f-%.0f]", w.deadlocks(),
                                w.deadlocksMin(), w.deadlocksMax()), r.meanBatch(), r.p50Micros()));
            }
            b.append('\n');
        }
        return b.toString();
    }

    static CategoryChart crossBorderChart(List<Row> rows, int cores) {
        return bars("Fig. 4.10: throughput by cross-border share - " + cores + " cores",
                "two-partition MULTI_PUTs, % of operations", "kops/s (median, min-max)",
                rows, r -> r.figure().equals("4.10"), r -> r.crossPct() + "%");
    }

    static CategoryChart clientsChart(List<Row> rows, int cores) {
        return bars("Fig. 4.11: throughput by clients and cross-border share - " + cores + " cores",
                "clients, cross-border %", "kops/s (median, min-max)", rows, r -> r.figure().equals("4.11"),
                r -> r.clients() + " clients, " + r.crossPct() + "%");
    }

    static CategoryChart readShareChart(List<Row> rows, int cores) {
        return bars("Fig. 4.16: throughput by share of READs (no cross-border operations) - " + cores + " cores",
                "READs, % of operations", "kops/s (median, min-max)", rows, r -> r.figure().equals("4.16"),
                r -> r.readPct() + "%");
    }

    static CategoryChart deadlocksChart(List<Row> rows, int cores) {
        CategoryChart chart = chart("Fig. 4.13: MLBFT's deadlocks per run by cross-border share - " + cores + " cores",
                "two-partition MULTI_PUTs, % of operations", "deadlocks resolved per run (median, min-max)");
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (Row r : rows) {
            if (r.figure().equals("4.10") && !Double.isNaN(r.deadlocks())) {
                bars.add(new RangeBars.Bar(r.crossPct() + "%", r.configuration(), r.deadlocks(), r.deadlocksMin(),
                        r.deadlocksMax()));
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    private static CategoryChart bars(String title, String x, String y, List<Row> rows, Predicate<Row> of,
                                      java.util.function.Function<Row, String> category) {
        CategoryChart chart = chart(title, x, y);
        List<RangeBars.Bar> bars = new ArrayList<>();
        for (Row r : rows) {
            if (of.test(r)) {
                E2eResult e = r.result();
                bars.add(new RangeBars.Bar(category.apply(r) + " " + shortName(r.configuration()), r.configuration(),
                        e.throughputOps() / 1e3, e.minOps() / 1e3, e.maxOps() / 1e3));
            }
        }
        RangeBars.plot(chart, bars);
        return chart;
    }

    /** A bar's label suffix: each bar has a category of its own ({@link RangeBars}). */
    private static String shortName(String configuration) {
        return configuration.equals(CONFIGURATIONS.get(0)) ? "ML" : configuration.equals(CONFIGURATIONS.get(1)) ? "COP" : "SL";
    }

    private static CategoryChart chart(String title, String x, String y) {
        CategoryChart chart = new CategoryChartBuilder().width(1000).height(520).title(title).xAxisTitle(x).yAxisTitle(y).build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisDecimalPattern("#,###.#");
        chart.getStyler().setXAxisLabelRotation(45);
        return chart;
    }

    private static Path save(Path dir, CategoryChart chart, String name) throws IOException {
        Path f = dir.resolve(name);
        try (OutputStream png = Files.newOutputStream(f)) {
            BitmapEncoder.saveBitmap(chart, png, BitmapEncoder.BitmapFormat.PNG);
        }
        return f;
    }

    private static String num(double v, String format) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, format, v);
    }
}
