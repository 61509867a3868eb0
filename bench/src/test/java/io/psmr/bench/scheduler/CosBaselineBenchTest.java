package io.psmr.bench.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cos.CosVariant;
import io.psmr.scheduler.SchedulerMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import io.psmr.bench.chart.RangeBars;

/** The COS baselines in {@code psmr bench}: planning, reporting (ratio to COS, targets, chart) and a tiny run. */
class CosBaselineBenchTest {

    private static final BenchMode COARSE = BenchMode.of(CosVariant.COARSE);
    private static final BenchMode LOCK_FREE = BenchMode.of(CosVariant.LOCK_FREE);

    private static BenchSettings settings(List<BenchMode> modes, List<Integer> workers, List<Integer> batches,
                                          List<Integer> conflicts) {
        return new BenchSettings(modes, workers, batches, conflicts, 1024, 64, 1, Duration.ofMillis(10),
                Duration.ofMillis(20), false, 42, 2, Path.of("unused"), true);
    }

    @Test
    void cosModesPlanBatchOfOneCellsBesideCbaseAtEveryWorkerCount() {
        List<Cell> plan = new SchedulerBench(settings(List.of(COARSE, LOCK_FREE), List.of(1, 2), List.of(200),
                List.of(20))).plan();
        assertEquals(List.of(
                new Cell(SchedulerMode.SEQUENTIAL, 200, 1, 20),
                new Cell(SchedulerMode.SEQUENTIAL, 1, 1, 20),
                new Cell(SchedulerMode.CBASE, 1, 1, 20),
                new Cell(SchedulerMode.CBASE, 1, 2, 20),
                new Cell(BenchMode.partitioned(), 200, 1, 20),
                new Cell(BenchMode.partitioned(), 200, 2, 20),
                new Cell(BenchMode.partitioned(), 1, 1, 20),
                new Cell(BenchMode.partitioned(), 1, 2, 20),
                new Cell(COARSE, 1, 1, 20),
                new Cell(COARSE, 1, 2, 20),
                new Cell(LOCK_FREE, 1, 1, 20),
                new Cell(LOCK_FREE, 1, 2, 20)), plan);
    }

    @Test
    void theQuickAndFullMatricesIncludeBothCosBaselines() {
        assertTrue(BenchCommand.DEFAULT_MODES.containsAll(List.of(COARSE, LOCK_FREE)), BenchCommand.DEFAULT_MODES.toString());
        List<Cell> plan = new SchedulerBench(settings(BenchCommand.DEFAULT_MODES, List.of(1, 2, 4), List.of(1, 200),
                List.of(0, 20))).plan();
        assertEquals(2 * 3 * 2, plan.stream().filter(Cell::isCos).count(), plan.toString());
        assertTrue(plan.stream().filter(Cell::isCos).allMatch(c -> c.batch() == 1), plan.toString());
    }

    @Test
    void namesParseAndUnknownNamesListEveryMode() {
        assertEquals(COARSE, BenchMode.fromCliName("cos-coarse"));
        assertEquals(LOCK_FREE, BenchMode.fromCliName("cos-lockfree"));
        assertEquals(BenchMode.of(SchedulerMode.CBASE), BenchMode.fromCliName("cbase"));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> BenchMode.fromCliName("cos"));
        assertEquals("unknown mode 'cos'; modes: sequential, cbase, keys-pairwise, keys-hashed, bitmap-monitor, "
                + "bitmap-indexed, rw-bitmap, cos-coarse, cos-lockfree, partitioned", e.getMessage());
        IllegalArgumentException renamed = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> BenchMode.fromCliName("keys"));
        assertTrue(renamed.getMessage().startsWith("mode 'keys' is no longer a name"), renamed.getMessage());
    }

    private static CellResult result(BenchMode mode, int batch, int workers, int conflict, double cps) {
        return new CellResult(new Cell(mode, batch, workers, conflict), cps, cps, cps, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 1, 2, 1, 0);
    }

    @Test
    void ratioToCosUsesTheBetterCosAtTheSameWorkersAndConflicts() {
        BenchMode indexed = BenchMode.of(SchedulerMode.BITMAP_INDEXED);
        List<CellResult> results = List.of(
                result(COARSE, 1, 1, 0, 50_000), result(LOCK_FREE, 1, 1, 0, 80_000),
                result(COARSE, 1, 2, 0, 90_000), result(LOCK_FREE, 1, 2, 0, 60_000),
                result(indexed, 100, 1, 0, 400_000), result(indexed, 200, 1, 0, 800_000),
                result(indexed, 200, 2, 0, 1_800_000), result(indexed, 200, 4, 0, 3_000_000));
        assertEquals(10.0, BenchReport.ratioVsCos(results, results.get(5)), 1e-9);
        assertEquals(20.0, BenchReport.ratioVsCos(results, results.get(6)), 1e-9);
        assertTrue(Double.isNaN(BenchReport.ratioVsCos(results, results.get(7))), "no COS at 4 workers");
        assertEquals(List.of(
                "psmr ÷ best COS, 1 worker, 0% conflicts: bitmap-indexed batch 200 800 kcmd/s ÷ cos-lockfree 80 kcmd/s = 10.00x",
                "psmr ÷ best COS, 2 workers, 0% conflicts: bitmap-indexed batch 200 1800 kcmd/s ÷ cos-coarse 90 kcmd/s = 20.00x"),
                BenchReport.cosRatios(results));
        String csv = BenchReport.csv(results, "G1");
        assertTrue(csv.contains("\nbitmap-indexed,split-indexed,200,1,0,800000,,,,0.00,1.0,2.0,1,10.000,G1,pre,,chronicle,,\n"), csv);
        assertTrue(csv.contains("\ncos-coarse,cos-coarse,1,1,0,50000,,,,0.00,1.0,2.0,1,0.625,G1,none,,chronicle,,\n"), csv);
        assertTrue(csv.contains("\nbitmap-indexed,split-indexed,200,4,0,3000000,,,,0.00,1.0,2.0,1,,G1,pre,,chronicle,,\n"), csv);
        assertEquals(List.of("not measured: psmr ÷ best COS (add cos-coarse,cos-lockfree to --modes)"),
                BenchReport.cosRatios(results.subList(4, 8)));
    }

    @Test
    void theScalabilityChartPutsTheCosBarsBesideCbase() {
        BenchMode cbase = BenchMode.of(SchedulerMode.CBASE);
        List<CellResult> plan = List.of(result(cbase, 1, 1, 0, 10_000), result(COARSE, 1, 1, 0, 20_000),
                result(LOCK_FREE, 1, 1, 0, 30_000), result(BenchMode.of(SchedulerMode.BITMAP_INDEXED), 200, 1, 0, 40_000));
        CategoryChart chart = BenchCharts.chart("t", plan, false);
        CategorySeries range = chart.getSeries(RangeBars.RANGE_SERIES);
        assertEquals(List.of("cbase w=1", "cos-coarse w=1", "cos-lockfree w=1", "bitmap-indexed b=200 w=1"),
                range.getXData().stream().map(String::valueOf).toList());
    }

    @Test
    void aShortRunReportsTheCosBaselinesAndPsmrOverCos(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "--modes", "bitmap-indexed,cos-coarse,cos-lockfree", "--batch", "1",
                "--workers", "1,2", "--conflict", "20", "--duration", "20ms", "--warmup", "10ms", "--runs", "1",
                "--bitmap-bits", "102400", "--store", "heap", "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        Path dir;
        try (Stream<Path> s = Files.list(tmp)) {
            dir = s.findFirst().orElseThrow();
        }
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(BenchReport.CSV_HEADER, lines.get(0));
        Set<String> cos = new HashSet<>();
        // The better COS baseline's throughput per worker count (one conflict level here): every row's ratio to
        // COS must be its throughput over that one. A run of 20 ms can measure any throughput, even one whose
        // ratio rounds to 0.000, so the check is the arithmetic, not a bound on the value.
        java.util.Map<String, Long> bestCos = new java.util.HashMap<>();
        java.util.Map<String, Long> cbase = new java.util.HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            if (f[0].startsWith("cos-")) {
                bestCos.merge(f[3], Long.parseLong(f[5]), Math::max);
            }
            if (f[0].equals("cbase")) {
                cbase.put(f[3] + "/" + f[4], Long.parseLong(f[5]));
            }
        }
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(20, f.length, line);
            double expected = (double) Long.parseLong(f[5]) / bestCos.get(f[3]);
            assertEquals(expected, Double.parseDouble(f[13]), 0.0005 + expected * 0.01, "ratio to COS: " + line);
            assertFalse(f[14].isBlank(), "collector: " + line);
            assertEquals(f[0].equals("bitmap-indexed") || f[0].equals("cbase") ? "pre" : "none", f[15],
                    "summaries: " + line);
            if (f[0].startsWith("cos-")) {
                assertEquals(f[0], f[1], "graph column names the COS variant: " + line);
                assertEquals("1", f[2], "COS runs commands one at a time: " + line);
                assertTrue(Long.parseLong(f[5]) > 0, "throughput must be positive: " + line);
                double toCbase = (double) Long.parseLong(f[5]) / cbase.get(f[3] + "/" + f[4]);
                assertEquals(toCbase, Double.parseDouble(f[6]), 0.0005 + toCbase * 0.01, "ratio to CBASE: " + line);
                cos.add(f[0] + "/" + f[3]);
            }
        }
        assertEquals(Set.of("cos-coarse/1", "cos-coarse/2", "cos-lockfree/1", "cos-lockfree/2"), cos);
        for (String where : List.of("1 worker, 20% conflicts", "2 workers, 20% conflicts")) {
            String line = "psmr ÷ best COS, " + where + ": bitmap-indexed batch 1 ";
            assertTrue(r.out().contains(line), "stdout should report '" + line + "':\n" + r.out());
            assertTrue(Files.readString(dir.resolve("summary.md")).contains("- " + line), "summary.md: " + line);
        }
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("cos-lockfree ")), "table row:\n" + r.out());
    }

    @Test
    void theCosBaselinesRunThroughTheMapService(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "--service", "map", "--modes", "cos-coarse,bitmap-indexed", "--workers", "1,2",
                "--batch", "200", "--conflict", "0", "--duration", "20ms", "--warmup", "10ms", "--runs", "1",
                "--bitmap-bits", "102400", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        assertTrue(r.out().contains("; service map, "), "machine line:\n" + r.out());
        assertTrue(r.out().contains("12 configurations x 2 runs"), "COS cells planned:\n" + r.out());
        Path dir;
        try (Stream<Path> s = Files.list(tmp)) {
            dir = s.findFirst().orElseThrow();
        }
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(BenchReport.CSV_HEADER, lines.get(0));
        Set<String> configs = new HashSet<>();
        java.util.Map<String, Long> cosCps = new java.util.HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(20, f.length, line);
            assertFalse(f[14].isBlank(), "collector: " + line);
            configs.add(String.join(",", f[0], f[2], f[3], f[15]));
            if (f[0].equals("cos-coarse")) {
                assertEquals("cos-coarse", f[1], line);
                cosCps.put(f[3], Long.parseLong(f[5]));
            }
        }
        // 20 ms runs on a loaded machine may complete nothing in a window; both at once would mean COS never ran.
        assertTrue(cosCps.values().stream().mapToLong(Long::longValue).sum() > 0, "COS executed map commands:\n" + lines);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            if (f[0].equals("bitmap-indexed") || f[0].startsWith("cos-")) {
                if (cosCps.get(f[3]) > 0) {
                    assertTrue(Double.parseDouble(f[13]) >= 0, "ratio to COS: " + line);
                } else {
                    assertEquals("", f[13], "no ratio over a COS that completed nothing: " + line);
                }
            }
        }
        assertEquals(Set.of("sequential,200,1,none", "sequential,1,1,none", "cbase,1,1,pre", "cbase,1,2,pre",
                "cos-coarse,1,1,none", "cos-coarse,1,2,none", "bitmap-indexed,200,1,pre", "bitmap-indexed,200,2,pre",
                "partitioned,200,1,none", "partitioned,200,2,none", "partitioned,1,1,none", "partitioned,1,2,none"),
                configs);
        assertEquals(configs.size(), lines.size() - 1, "no configuration twice");
        for (String w : List.of("1", "2")) {
            String where = w + (w.equals("1") ? " worker" : " workers") + ", 0% conflicts";
            String line = cosCps.get(w) > 0 ? "psmr ÷ best COS, " + where + ": bitmap-indexed batch 200 "
                    : "not measured: psmr ÷ best COS, " + where + " (cos-coarse completed nothing";
            assertTrue(r.out().contains(line), "stdout should report '" + line + "':\n" + r.out());
        }
        assertTrue(Files.size(dir.resolve("scaling.png")) > 1000);
    }

    @Test
    void theScalingChartHasCosSeries() {
        Cell cos = new Cell(COARSE, 1, 2, 0);
        CellResult r = new CellResult(cos, 1000, 900, 1100, 1.0, 0.4, Double.NaN, Double.NaN, Double.NaN, 3, 1, 2, 1, 0);
        assertEquals(List.of(r), BenchCharts.scalingRows(List.of(r)));
        assertEquals("cos-coarse", BenchCharts.scalingSeries(cos));
    }
}
