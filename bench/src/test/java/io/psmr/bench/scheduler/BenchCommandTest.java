package io.psmr.bench.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cli.PsmrMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code psmr bench}: usage errors, and a tiny run's results.csv. Asserts behaviour, never speed. */
class BenchCommandTest {


    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--workers 0            | --workers must be from 1 to 1024, got 0",
        "--workers x            | Invalid value for option '--workers'",
        "--batch 0              | --batch must be from 1 to 4095, got 0",
        "--batch 4096           | --batch must be from 1 to 4095, got 4096",
        "--workers 1025         | --workers must be from 1 to 1024, got 1025",
        "--conflict 101         | --conflict must be a percentage",
        "--modes bitmap,nosuch  | mode 'bitmap' is no longer a name; use bitmap-indexed",
        "--modes keys           | mode 'keys' is no longer a name; use keys-pairwise",
        "--modes nosuch         | unknown mode 'nosuch'; modes: sequential, cbase, keys-pairwise",
        "--modes cos,cbase      | unknown mode 'cos'; modes: sequential, cbase, keys-pairwise, keys-hashed, bitmap-monitor, bitmap-indexed, rw-bitmap, cos-coarse, cos-lockfree",
        "--duration fast        | Invalid value for option '--duration': 'fast' is not a duration",
        "--duration 2           | Invalid value for option '--duration': '2' has no unit",
        "--duration 1ms         | --duration must be from 10ms to 10m, got 1ms",
        "--warmup -1s           | Invalid value for option '--warmup': '-1s' is not a duration",
        "--runs 0               | --runs must be from 1 to 100",
        "--bitmap-bits 0        | --bitmap-bits must be at least 1",
        "--bits 1024            | --bits was renamed --bitmap-bits",
        "--no-progress          | --no-progress was renamed --quiet",
        "--format table         | format 'table' was renamed text",
        "--format json          | --format must be text or csv for psmr bench, got 'json'",
        "--max-pending 0        | --max-pending must be from 1 to 65536",
        "--format xml           | Invalid value for option '--format'",
        "--store disk           | --store must be one or more of chronicle, chronicle-map-api, heap, got 'disk'",
        "--store heap,heap      | --store names heap twice",
        "--service redis        | --service must be kv or map, got 'redis'",
        "--service map --store heap | --store heap applies to --service kv only",
        "--work-ns -1           | --work-ns must be from 0 to 1000000, got -1",
        "--work-ns 1000001      | --work-ns must be from 0 to 1000000, got 1000001",
        "--work-ns lots         | Invalid value for option '--work-ns'",
        "--summaries later      | --summaries must be pre, timed or both, got 'later'",
        "--quick --full         | --quick and --full are mutually exclusive",
        "--bogus                | Unknown option: '--bogus'",
        "micro --forks -1       | --forks must be from 0 to 10",
        "micro --include [      | --include is not a regular expression",
        "micro --time 1000      | Invalid value for option '--time': '1000' has no unit",
        "micro --time 5ms       | --time must be from 10ms to 1m, got 5ms",
    })
    void badFlagsExitWithUsageErrorNamingTheFlag(String args, String message) {
        String[] argv = Stream.concat(Stream.of("bench"), Stream.of(args.trim().split("\\s+"))).toArray(String[]::new);
        CliRun r = CliRun.of(argv);
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), "exit code; stderr:\n" + r.err());
        assertTrue(r.err().contains(message.trim()), "stderr should contain '" + message.trim() + "':\n" + r.err());
        assertEquals("", r.out(), "nothing on stdout");
    }

    @Test
    void helpDescribesTheBenchmark() {
        CliRun r = CliRun.of("bench", "--help");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("--quick"), r.out());
        assertTrue(r.out().contains("micro"), r.out());
    }

    @Test
    void aTinyRunWritesResultsCsvWithTheExactHeaderAndSaneRows(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "--modes", "bitmap-indexed,sequential", "--batch", "10", "--workers", "1,2",
                "--conflict", "0,20", "--duration", "60ms", "--warmup", "20ms", "--runs", "1", "--bitmap-bits", "102400",
                "--format", "csv", "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        List<Path> dirs;
        try (Stream<Path> s = Files.list(tmp)) {
            dirs = s.toList();
        }
        assertEquals(1, dirs.size(), "one results folder: " + dirs);
        Path dir = dirs.get(0);
        assertTrue(dir.getFileName().toString().startsWith("bench-"), dir.toString());
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals("mode,graph,batch,workers,conflict_pct,throughput_cps,ratio_vs_cbase,limit_fraction,"
                + "ceiling_fraction,avg_graph_size,p50_us,p99_us,runs,ratio_vs_cos,collector,summaries,left_out,store,"
                + "ceiling_fraction_min,ceiling_fraction_max", lines.get(0));
        assertEquals(BenchReport.CSV_HEADER, lines.get(0));
        assertEquals(lines, r.out().lines().toList(), "--format csv prints results.csv");

        Set<String> configs = new HashSet<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(20, f.length, "row: " + line);
            assertEquals("", f[13], "no COS asked, no ratio to COS: " + line);
            assertFalse(f[14].isEmpty(), "collector: " + line);
            assertEquals(f[0].equals("bitmap-indexed") || f[0].equals("cbase") ? "pre" : "none", f[15], "summaries: " + line);
            assertTrue(Long.parseLong(f[5]) > 0, "throughput must be positive: " + line);
            double limit = Double.parseDouble(f[7]);
            assertTrue(limit > 0, "limit fraction: " + line);
            assertEquals("1", f[12], "runs: " + line);
            if (f[0].equals("partitioned")) {
                assertEquals("none", f[1], line);
                assertEquals("", f[6], "the ceiling has no CBASE ratio: " + line);
                assertEquals("", f[8] + f[18] + f[19], "the ceiling is not a fraction of itself: " + line);
                assertEquals("", f[9] + f[10] + f[11], "no graph and no latency: " + line);
                assertEquals("0", f[16], "single-key commands: none left out: " + line);
                assertTrue(configs.add(String.join(",", f[0], f[1], f[2], f[3], f[4])), "no configuration twice: " + line);
                continue;
            }
            assertEquals("", f[16], "left_out is the partitioned cells' column: " + line);
            assertEquals("chronicle", f[17], "one store: " + line);
            assertTrue(Double.parseDouble(f[6]) > 0, "ratio to CBASE: " + line);
            assertTrue(Double.parseDouble(f[10]) <= Double.parseDouble(f[11]), "p50 <= p99: " + line);
            if (f[0].equals("sequential")) {
                assertEquals("none", f[1], line);
                assertEquals("1.000", f[7], "sequential is its own limit: " + line);
                assertEquals("", f[8] + f[18] + f[19], "sequential has no ceiling: " + line);
                assertEquals("0.00", f[9], "no graph in sequential: " + line);
            } else {
                assertTrue(Double.parseDouble(f[8]) > 0, "fraction of the partitioned ceiling: " + line);
                assertEquals(f[8], f[18], "one run: its fraction is the lowest: " + line);
                assertEquals(f[8], f[19], "one run: its fraction is the highest: " + line);
                assertTrue(Double.parseDouble(f[9]) >= 0, line);
            }
            assertTrue(configs.add(String.join(",", f[0], f[1], f[2], f[3], f[4])), "no configuration twice: " + line);
        }
        Set<String> expected = new HashSet<>();
        for (String c : List.of("0", "20")) {
            expected.add("sequential,none,10,1," + c);
            expected.add("sequential,none,1,1," + c);
            expected.add("cbase,monitor,1,1," + c);
            expected.add("cbase,monitor,1,2," + c);
            expected.add("bitmap-indexed,split-indexed,10,1," + c);
            expected.add("bitmap-indexed,split-indexed,10,2," + c);
            for (String b : List.of("1", "10")) {
                expected.add("partitioned,none," + b + ",1," + c);
                expected.add("partitioned,none," + b + ",2," + c);
            }
        }
        assertEquals(expected, configs);
        for (String row : lines) {
            if (row.startsWith("cbase,monitor,1,")) {
                assertEquals("1.000", row.split(",")[6], "CBASE is its own reference: " + row);
            }
        }
        assertTrue(Files.size(dir.resolve("ceiling.png")) > 1000);
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("| config | batch | workers |"));
        assertTrue(Files.size(dir.resolve("fig4-scalability.png")) > 1000);
        assertTrue(Files.size(dir.resolve("fig5-conflicts.png")) > 1000);
        assertTrue(Files.size(dir.resolve("scaling.png")) > 1000);
    }

    @Test
    void theMapServiceWithBusyWorkAndTimedSummariesRuns(@TempDir Path tmp) throws IOException {
        // 80 ms runs: a 20 ms run once completed no batch in its 18 ms window (a JIT or GC pause on 2 busy cores).
        CliRun r = CliRun.of("bench", "--service", "map", "--work-ns", "100", "--duration", "80ms", "--warmup", "30ms",
                "--runs", "1", "--workers", "1,2", "--batch", "200", "--conflict", "0,20", "--modes", "bitmap-indexed",
                "--summaries", "both", "--bitmap-bits", "102400", "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        assertTrue(r.out().contains("service map, 100 ns of busy work per command ("), r.out());
        assertTrue(r.out().contains("busy work: 100 ns of busy work per command ("), r.out());
        assertTrue(r.out().contains(" collector, heap max "), r.out());
        // The ratios, without verdicts against targets the reader never set.
        assertTrue(r.out().lines().anyMatch(l -> l.matches("bitmap \\(indexed\\) batch 200, 2 workers, 0% conflicts: "
                + "[0-9.]+ \\[[0-9.]+-[0-9.]+\\] of the partitioned ceiling, [0-9.]+ of the limit")), r.out());
        assertTrue(r.out().contains("partitioned ceiling: no command left out (none touches keys of two partitions)"), r.out());
        assertFalse(r.out().contains("MISSED") || r.out().contains("met: "), r.out());
        Path dir;
        try (Stream<Path> s = Files.list(tmp)) {
            dir = s.findFirst().orElseThrow();
        }
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals(BenchReport.CSV_HEADER, lines.get(0));
        Set<String> configs = new HashSet<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(20, f.length, "row: " + line);
            assertEquals("", f[13], "no COS asked, no ratio to COS: " + line);
            if (!f[0].equals("cbase")) {
                // CBASE at 20 ms runs may complete nothing in the window on a loaded machine: not asserted.
                assertTrue(Long.parseLong(f[5]) > 0, "throughput must be positive: " + line);
            }
            assertFalse(f[14].isBlank(), "collector: " + line);
            configs.add(String.join(",", f[0], f[2], f[3], f[4], f[15]));
        }
        Set<String> expected = new HashSet<>();
        for (String c : List.of("0", "20")) {
            expected.add("sequential,200,1," + c + ",none");
            expected.add("sequential,1,1," + c + ",none");
            for (String w : List.of("1", "2")) {
                expected.add("partitioned,200," + w + "," + c + ",none");
                expected.add("partitioned,1," + w + "," + c + ",none");
            }
            for (String when : List.of("pre", "timed")) {
                for (String w : List.of("1", "2")) {
                    expected.add("cbase,1," + w + "," + c + "," + when);
                    expected.add("bitmap-indexed,200," + w + "," + c + "," + when);
                }
            }
        }
        assertEquals(expected, configs);
        assertEquals(expected.size(), lines.size() - 1, "no configuration twice");
        String summary = Files.readString(dir.resolve("summary.md"));
        assertTrue(summary.contains("| bitmap-indexed | 200 | 2 | 0% |") && summary.contains("| timed |"), summary);
        assertTrue(summary.contains("\n## Ratios\n"), summary);
        assertFalse(summary.contains("MISSED") || summary.contains("met: ") || summary.contains("Targets"), summary);
        assertTrue(Files.size(dir.resolve("scaling.png")) > 1000);
    }

    @Test
    void aSecondStoreRunsEveryConfigurationAgainAsItsTwinWithItsOwnReferences(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "--store", "heap,chronicle", "--modes", "bitmap-indexed", "--batch", "20",
                "--workers", "2", "--conflict", "0", "--duration", "40ms", "--warmup", "20ms", "--runs", "1",
                "--bitmap-bits", "102400", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        assertTrue(r.out().contains("heap (ConcurrentHashMap) store, A/B twin Chronicle Map store (@chronicle)"), r.out());
        Path dir;
        try (Stream<Path> s = Files.list(tmp)) {
            dir = s.findFirst().orElseThrow();
        }
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        Set<String> configs = new HashSet<>();
        java.util.Map<String, String[]> rows = new java.util.HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            String key = String.join(",", f[0], f[2], f[3], f[17]);
            assertTrue(configs.add(key), "no configuration twice: " + line);
            rows.put(key, f);
        }
        Set<String> expected = new HashSet<>();
        for (String store : List.of("heap", "chronicle")) {
            for (String cell : List.of("sequential,20,1", "sequential,1,1", "cbase,1,2", "bitmap-indexed,20,2",
                    "partitioned,20,2", "partitioned,1,2")) {
                expected.add(cell + "," + store);
            }
        }
        assertEquals(expected, configs);
        // Each store's fractions are over its own references.
        for (String store : List.of("heap", "chronicle")) {
            String[] b = rows.get("bitmap-indexed,20,2," + store);
            double seq = Double.parseDouble(rows.get("sequential,20,1," + store)[5]);
            double ceiling = Double.parseDouble(rows.get("partitioned,20,2," + store)[5]);
            double thr = Double.parseDouble(b[5]);
            assertEquals(thr / (2 * seq), Double.parseDouble(b[7]), 0.0005 + 0.01 * thr / (2 * seq), store + " limit");
            assertEquals(thr / ceiling, Double.parseDouble(b[8]), 0.0005 + 0.01 * thr / ceiling, store + " ceiling");
        }
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("store A/B, bitmap-indexed batch 20, 2 workers, 0% conflicts: ")
                && l.contains(" vs @chronicle ")), r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("bitmap-indexed@chronicle ")), "table row:\n" + r.out());
    }
}
