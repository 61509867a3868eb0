package io.psmr.bench.scheduler;

import io.psmr.bench.scheduler.service.BusyWork;
import io.psmr.bench.scheduler.service.ServiceKind;
import io.psmr.bench.stats.JvmCollector;
import io.psmr.scheduler.SchedulerMode;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/** The outputs of {@code psmr bench}: the table, results.csv, summary.md. Charts are {@link BenchCharts}. */
public final class BenchReport {

    /** The exact header of results.csv. */
    public static final String CSV_HEADER = "mode,graph,batch,workers,conflict_pct,throughput_cps,ratio_vs_cbase,"
            + "limit_fraction,ceiling_fraction,avg_graph_size,p50_us,p99_us,runs,ratio_vs_cos,collector,summaries,left_out,store,"
            + "ceiling_fraction_min,ceiling_fraction_max";

    private BenchReport() {
    }

    /**
     * results.csv: the header, then one row per cell in plan order. NaN columns are empty.
     * {@code ratio_vs_cos} is the cell's median over the better COS baseline's median at the same
     * workers and conflicts ({@link #ratioVsCos}). The {@code collector} column is this JVM's
     * ({@link JvmCollector#name()}); {@code summaries} is {@link Cell#summaries()}; {@code left_out}, for a
     * {@code partitioned} cell only, the commands of its cycle left out because they touch two partitions.
     */
    public static String csv(List<CellResult> results) {
        return csv(results, JvmCollector.name());
    }

    /** results.csv with {@code collector} in the collector column and {@code chronicle} as the first store. */
    public static String csv(List<CellResult> results, String collector) {
        return csv(results, collector, "chronicle");
    }

    /**
     * results.csv with {@code collector} in the collector column; {@code store} names the invocation's first
     * store (or {@code map} for the map service), an A/B twin's row names its own.
     */
    public static String csv(List<CellResult> results, String collector, String store) {
        StringBuilder b = new StringBuilder(CSV_HEADER).append('\n');
        for (CellResult r : results) {
            Cell c = r.cell();
            b.append(c.mode().cliName()).append(',').append(graphColumn(c.mode())).append(',')
                    .append(c.batch()).append(',').append(c.workers()).append(',').append(c.conflictPct()).append(',')
                    .append(Math.round(r.throughputCps())).append(',')
                    .append(num(r.ratioVsCbase(), "%.3f")).append(',')
                    .append(num(r.limitFraction(), "%.3f")).append(',')
                    .append(num(r.ceilingFraction(), "%.3f")).append(',')
                    .append(num(r.avgGraphSize(), "%.2f")).append(',')
                    .append(num(r.p50Micros(), "%.1f")).append(',')
                    .append(num(r.p99Micros(), "%.1f")).append(',')
                    .append(r.runs()).append(',')
                    .append(num(ratioVsCos(results, r), "%.3f")).append(',')
                    .append(collector).append(',')
                    .append(c.summaries()).append(',')
                    .append(c.isPartitioned() ? Long.toString(r.leftOut()) : "").append(',')
                    .append(c.twinStore() != null ? c.twinStore().cliName() : store).append(',')
                    .append(num(r.ceilingMin(), "%.3f")).append(',')
                    .append(num(r.ceilingMax(), "%.3f")).append('\n');
        }
        return b.toString();
    }

    /** The {@code graph} column of results.csv: {@code monitor}, {@code indexed}, or {@code none} for sequential. */
    public static String graphColumn(SchedulerMode mode) {
        return mode.graph() == null ? "none" : mode.graph().cliName();
    }

    /**
     * The {@code graph} column for a cell's mode: as {@link #graphColumn(SchedulerMode)}, the COS variant's
     * name, or {@code none} for the partitioned reference.
     */
    public static String graphColumn(BenchMode mode) {
        if (mode instanceof BenchMode.Psmr p) {
            return p.graph() == null ? "none" : p.graph().cliName();
        }
        return mode instanceof BenchMode.Partitioned ? "none" : mode.cliName();
    }

    /** The better (faster) COS baseline measured at {@code workers} and {@code conflictPct}, if any. */
    static Optional<CellResult> bestCos(List<CellResult> results, int workers, int conflictPct) {
        return bestCos(results, workers, conflictPct, null);
    }

    /** As {@link #bestCos(List, int, int)}, among the cells on {@code store} (null: the first store). */
    static Optional<CellResult> bestCos(List<CellResult> results, int workers, int conflictPct,
                                        io.psmr.bench.scheduler.service.BenchStore store) {
        return results.stream()
                .filter(r -> r.cell().isCos() && r.cell().workers() == workers && r.cell().conflictPct() == conflictPct
                        && r.cell().twinStore() == store)
                .max(java.util.Comparator.comparingDouble(CellResult::throughputCps));
    }

    /** {@code r}'s median over the better COS median at the same workers and conflicts; NaN if no COS was measured there. */
    public static double ratioVsCos(List<CellResult> results, CellResult r) {
        return bestCos(results, r.cell().workers(), r.cell().conflictPct(), r.cell().twinStore())
                .map(cos -> r.throughputCps() / cos.throughputCps()).orElse(Double.NaN);
    }

    /**
     * The "psmr ÷ best COS" lines, at 1 and 2 workers and every conflict level: the bitmap-indexed
     * median at batch 200 (or, without it, at the largest batch measured; summaries built before
     * timing) over the better COS median at the same workers and conflicts.
     */
    public static List<String> cosRatios(List<CellResult> results) {
        List<String> t = new ArrayList<>();
        if (results.stream().noneMatch(r -> r.cell().isCos())) {
            t.add("not measured: psmr ÷ best COS (add cos-coarse,cos-lockfree to --modes)");
            return t;
        }
        TreeSet<Integer> conflicts = new TreeSet<>();
        results.forEach(r -> conflicts.add(r.cell().conflictPct()));
        for (int w : List.of(1, 2)) {
            for (int conflict : conflicts) {
                Optional<CellResult> cos = bestCos(results, w, conflict);
                if (cos.isEmpty()) {
                    continue;
                }
                String where = w + (w == 1 ? " worker, " : " workers, ") + conflict + "% conflicts";
                Optional<CellResult> psmr = results.stream()
                        .filter(r -> r.cell().runs(SchedulerMode.BITMAP_INDEXED) && r.cell().workers() == w
                                && r.cell().conflictPct() == conflict)
                        .max(java.util.Comparator.comparingInt((CellResult r) -> r.cell().batch() == 200 ? 1 : 0)
                                .thenComparingInt(r -> r.cell().batch()));
                if (psmr.isEmpty()) {
                    t.add("not measured: psmr ÷ best COS, " + where + " (no bitmap-indexed cell)");
                    continue;
                }
                CellResult p = psmr.get();
                CellResult c = cos.get();
                if (!(c.throughputCps() > 0)) {
                    t.add("not measured: psmr ÷ best COS, " + where + " (" + c.cell().mode().cliName()
                            + " completed nothing in its measured window; lengthen --duration)");
                    continue;
                }
                t.add(String.format(Locale.ROOT, "psmr ÷ best COS, %s: bitmap-indexed batch %d %.0f kcmd/s ÷ %s "
                                + "%.0f kcmd/s = %.2fx", where, p.cell().batch(), p.throughputCps() / 1e3,
                        c.cell().mode().cliName(), c.throughputCps() / 1e3, p.throughputCps() / c.throughputCps()));
            }
        }
        return t;
    }

    /** The table on stdout. */
    public static void table(List<CellResult> results, BenchSettings s, PrintWriter out) {
        int width = Math.max(15, results.stream().mapToInt(r -> r.cell().label().length()).max().orElse(0));
        out.printf(Locale.ROOT, "%-" + width + "s %5s %4s %5s %22s %9s %7s %7s %7s %10s %10s %6s%n",
                "config", "batch", "thr", "confl", "kcmd/s median [min-max]", "x CBASE", "limit", "ceiling", "graph",
                "p50 us", "p99 us", "summ");
        for (CellResult r : results) {
            Cell c = r.cell();
            String k = String.format(Locale.ROOT, "%.0f [%.0f-%.0f]", r.throughputCps() / 1e3, r.minCps() / 1e3,
                    r.maxCps() / 1e3);
            out.printf(Locale.ROOT, "%-" + width + "s %5d %4d %4d%% %22s %9s %7s %7s %7s %10s %10s %6s%n",
                    c.label(), c.batch(), c.workers(), c.conflictPct(), k,
                    dash(r.ratioVsCbase(), "%.2f"), dash(r.limitFraction(), "%.2f"), dash(r.ceilingFraction(), "%.2f"),
                    c.mode().parallel() ? dash(r.avgGraphSize(), "%.1f") : "-",
                    dash(r.p50Micros(), "%.1f"), dash(r.p99Micros(), "%.1f"), c.mode().parallel() ? c.summaries() : "-");
        }
        out.flush();
    }

    /**
     * The header line of the table and summary.md: machine (cores, JVM, collector, heap) and settings
     * (service, extra work, where summaries are built).
     */
    public static String machine(BenchSettings s) {
        return String.format(Locale.ROOT, "%d cores, Java %s (%s), %s, %s %s; m = %,d bits, max pending %d, "
                        + "%d measured runs of %d ms after a %d ms warm-up per configuration, summaries %s, %s; "
                        + "service %s, %s; summaries built %s",
                s.cores(), System.getProperty("java.version"), System.getProperty("java.vm.name"), JvmCollector.describe(),
                System.getProperty("os.name"), System.getProperty("os.arch"), s.bitmapBits(), s.maxPending(),
                s.runs(), s.duration().toMillis(), s.warmup().toMillis(),
                s.verify() ? "verified on delivery" : "not re-verified",
                s.service() == ServiceKind.MAP ? "ConcurrentHashMap get/merge per command"
                        : s.store().describe() + s.twinStores().stream().map(t -> ", A/B twin " + t.describe()
                                + " (@" + t.cliName() + ")").collect(java.util.stream.Collectors.joining()),
                s.service().cliName(), BusyWork.of(s.workNanos()).describe(), summariesSetting(s.summaries()));
    }

    private static String summariesSetting(SummaryTiming t) {
        return switch (t) {
            case PRE -> "before timing";
            case TIMED -> "inside the timed loop";
            case BOTH -> "both before timing and inside the timed loop (two cells each)";
        };
    }

    /** summary.md: settings, the table with min and max, the ratios. */
    public static String summaryMarkdown(List<CellResult> results, BenchSettings s, String timestamp) {
        StringWriter sw = new StringWriter();
        PrintWriter o = new PrintWriter(sw);
        o.println("# psmr bench " + timestamp);
        o.println();
        o.println("Machine and settings: " + machine(s) + ".");
        o.println();
        o.println("Throughput is the median of the measured runs, with min and max. `limit` is throughput / "
                + "(min(workers, " + s.cores() + " cores) x sequential throughput of the same batches); `ceiling` is "
                + "the median over rounds of throughput / the `partitioned` reference's in the same round (the same "
                + "commands split by key over as many threads, no scheduler: what the service itself allows that many "
                + "threads); `x CBASE` "
                + "is the ratio to CBASE (batch 1, keys compared pairwise, monitor graph) at the same workers and "
                + "conflicts and summaries; `graph` is the mean number of pending batches; latency is from delivery to "
                + "completion; `summaries` says whether a summary stage ahead of the delivery thread built each batch's summary inside the timed "
                + "loop (`timed`) or it was built before timing (`pre`).");
        o.println();
        o.println("| config | batch | workers | conflicts | kcmd/s | min-max | x CBASE | limit | ceiling | graph | p50 us | p99 us | summaries |");
        o.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (CellResult r : results) {
            Cell c = r.cell();
            o.printf(Locale.ROOT, "| %s | %d | %d | %d%% | %.0f | %.0f-%.0f | %s | %s | %s | %s | %s | %s | %s |%n",
                    c.label(), c.batch(), c.workers(), c.conflictPct(), r.throughputCps() / 1e3,
                    r.minCps() / 1e3, r.maxCps() / 1e3, num(r.ratioVsCbase(), "%.2f"), num(r.limitFraction(), "%.2f"),
                    num(r.ceilingFraction(), "%.2f"),
                    c.mode().parallel() ? num(r.avgGraphSize(), "%.1f") : "-", num(r.p50Micros(), "%.1f"),
                    num(r.p99Micros(), "%.1f"), c.summaries());
        }
        o.println();
        o.println("## Ratios");
        o.println();
        for (String line : ratios(results)) {
            o.println("- " + line);
        }
        o.flush();
        return sw.toString();
    }

    /**
     * The ratios a reader compares: bitmap-indexed batch 200 against the limit and against CBASE, the
     * indexed against the monitor graph, psmr against the best COS baseline, and design variants
     * against their mode; one line each, or "not measured" where this run lacks a cell.
     */
    public static List<String> ratios(List<CellResult> results) {
        List<String> t = new ArrayList<>();
        TreeSet<Integer> conflictLevels = new TreeSet<>();
        results.forEach(r -> conflictLevels.add(r.cell().conflictPct()));
        for (int conflict : conflictLevels.isEmpty() ? java.util.Set.of(0) : conflictLevels) {
            String at = conflict + "% conflicts";
            Optional<CellResult> b2 = find(results, SchedulerMode.BITMAP_INDEXED, 200, 2, conflict);
            t.add(b2.map(r -> String.format(Locale.ROOT, "bitmap (indexed) batch 200, 2 workers, %s: %s of the "
                                    + "partitioned ceiling, %.3f of the limit", at, ceilingFraction(r),
                            r.limitFraction()))
                    .orElse("not measured: bitmap (indexed) batch 200, 2 workers, " + at));
            Optional<CellResult> b1 = find(results, SchedulerMode.BITMAP_INDEXED, 200, 1, conflict);
            t.add(b1.map(r -> String.format(Locale.ROOT,
                            "bitmap (indexed) batch 200, 1 worker, %s: %.3f of sequential", at, r.limitFraction()))
                    .orElse("not measured: bitmap (indexed) batch 200, 1 worker, " + at));
            Optional<CellResult> p2 = results.stream().filter(r -> r.cell().equals(
                    new Cell(BenchMode.partitioned(), 200, 2, conflict))).findFirst();
            p2.ifPresent(r -> t.add(String.format(Locale.ROOT, "partitioned ceiling, batch 200 stream, 2 threads, %s: "
                    + "%.3f of the limit (how far the service itself scales)", at, r.limitFraction())));
        }
        t.add(leftOutLine(results));
        TreeSet<Integer> workers = new TreeSet<>();
        results.forEach(r -> workers.add(r.cell().workers()));
        for (int w : workers) {
            Optional<CellResult> b = find(results, SchedulerMode.BITMAP_INDEXED, 200, w, 0);
            b.ifPresent(r -> t.add(String.format(Locale.ROOT,
                    "bitmap (indexed) batch 200 vs CBASE, %d worker(s), 0%% conflicts: %.1fx (paper: 25.9x)", w,
                    r.ratioVsCbase())));
        }
        Map<String, double[]> graphs = new LinkedHashMap<>();
        for (CellResult r : results) {
            Cell c = r.cell();
            if (c.runs(SchedulerMode.BITMAP_INDEXED) || c.runs(SchedulerMode.BITMAP_MONITOR)) {
                String key = "batch " + c.batch() + ", " + c.workers() + " worker(s), " + c.conflictPct() + "% conflicts";
                double[] v = graphs.computeIfAbsent(key, k -> new double[] {Double.NaN, Double.NaN});
                v[c.psmrMode() == SchedulerMode.BITMAP_INDEXED ? 0 : 1] = r.throughputCps();
            }
        }
        for (Map.Entry<String, double[]> e : graphs.entrySet()) {
            double[] v = e.getValue();
            if (!Double.isNaN(v[0]) && !Double.isNaN(v[1])) {
                t.add(String.format(Locale.ROOT,
                        "indexed vs monitor graph (bitmap), %s: %.0f vs %.0f kcmd/s (%.2fx)", e.getKey(), v[0] / 1e3,
                        v[1] / 1e3, v[0] / v[1]));
            }
        }
        t.addAll(cosRatios(results));
        t.addAll(designComparisons(results));
        t.addAll(storeComparisons(results));
        return t;
    }

    /**
     * One line per design variant cell ({@link BenchMode.Psmr#isVariant()}): its throughput and
     * fraction of the limit against the mode as a replica runs it, same batch, workers and conflicts.
     */
    static List<String> designComparisons(List<CellResult> results) {
        List<String> t = new ArrayList<>();
        for (CellResult r : results) {
            Cell c = r.cell();
            if (!(c.mode() instanceof BenchMode.Psmr p) || !p.isVariant() || c.summaryTimed() || c.twinStore() != null) {
                continue;
            }
            Cell base = new Cell(BenchMode.of(p.mode()), c.batch(), c.workers(), c.conflictPct(), false);
            results.stream().filter(b -> b.cell().equals(base)).findFirst().ifPresent(b -> t.add(String.format(Locale.ROOT,
                    "A/B %s vs %s, batch %d, %d worker(s), %d%% conflicts: %.0f vs %.0f kcmd/s (%.2fx), "
                            + "limit %.2f vs %.2f", p.cliName(), p.mode().cliName(), c.batch(), c.workers(),
                    c.conflictPct(), r.throughputCps() / 1e3, b.throughputCps() / 1e3,
                    r.throughputCps() / b.throughputCps(), r.limitFraction(), b.limitFraction())));
        }
        return t;
    }

    /** What the partitioned cells left out: commands whose keys fall in two partitions. */
    static String leftOutLine(List<CellResult> results) {
        List<CellResult> partitioned = results.stream().filter(r -> r.cell().isPartitioned()).toList();
        if (partitioned.isEmpty()) {
            return "not measured: the partitioned ceiling";
        }
        List<String> cells = partitioned.stream().filter(r -> r.leftOut() > 0)
                .map(r -> r.cell().describe() + ": " + r.leftOut()).toList();
        return cells.isEmpty()
                ? "partitioned ceiling: no command left out (none touches keys of two partitions)"
                : "partitioned ceiling: commands left out per cycle (keys in two partitions): " + String.join("; ", cells);
    }

    /** The ceiling fraction with the range of its rounds, e.g. {@code 0.931 [0.902-0.957]}. */
    private static String ceilingFraction(CellResult r) {
        return Double.isFinite(r.ceilingFraction())
                ? String.format(Locale.ROOT, "%.3f [%.3f-%.3f]", r.ceilingFraction(), r.ceilingMin(), r.ceilingMax())
                : "(not measured)";
    }

    static Optional<CellResult> find(List<CellResult> results, SchedulerMode mode, int batch, int workers, int conflict) {
        return results.stream().filter(r -> r.cell().equals(new Cell(mode, batch, workers, conflict))).findFirst();
    }

    /** Writes results.csv and summary.md into {@code dir}. */
    public static void write(Path dir, List<CellResult> results, BenchSettings s, String timestamp) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("results.csv"), csv(results, JvmCollector.name(), storeColumn(s)), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("summary.md"), summaryMarkdown(results, s, timestamp), StandardCharsets.UTF_8);
    }

    /** The {@code store} column of the first store's rows: its name, or {@code map} for the map service. */
    public static String storeColumn(BenchSettings s) {
        return s.service() == ServiceKind.MAP ? "map" : s.store().cliName();
    }

    /**
     * One line per A/B twin cell: its throughput against the same configuration on the first store,
     * e.g. Chronicle Map through its plain Map methods against its reusable contexts.
     */
    static List<String> storeComparisons(List<CellResult> results) {
        List<String> t = new ArrayList<>();
        for (CellResult r : results) {
            Cell c = r.cell();
            if (c.twinStore() == null) {
                continue;
            }
            Cell first = c.on(null);
            results.stream().filter(b -> b.cell().equals(first)).findFirst().ifPresent(b -> t.add(String.format(
                    Locale.ROOT, "store A/B, %s: %.0f [%.0f-%.0f] vs @%s %.0f [%.0f-%.0f] kcmd/s (%.2fx)",
                    first.describe(), b.throughputCps() / 1e3, b.minCps() / 1e3, b.maxCps() / 1e3,
                    c.twinStore().cliName(), r.throughputCps() / 1e3, r.minCps() / 1e3, r.maxCps() / 1e3,
                    b.throughputCps() / r.throughputCps())));
        }
        return t;
    }

    private static String dash(double v, String format) {
        String s = num(v, format);
        return s.isEmpty() ? "-" : s;
    }

    private static String num(double v, String format) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, format, v);
    }
}
