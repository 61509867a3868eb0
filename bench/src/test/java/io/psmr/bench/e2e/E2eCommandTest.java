package io.psmr.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cli.PsmrMain;
import io.psmr.ordering.OrderingProtocol;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code psmr bench e2e}: usage errors, and a tiny run's results.csv. Asserts behaviour, never speed. */
class E2eCommandTest {


    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--clients 0            | --clients must be from 1 to 10000",
        "--read-fraction 2      | --read-fraction must be from 0 to 1, got 2",
        "--workers 0            | --workers must be from 1 to 1024, got 0",
        "--batch 0              | --batch must be from 1 to 4095",
        "--window 0             | --window must be from 1 to 1024",
        "--conflict 101         | --conflict must be a percentage",
        "--keys 0               | --keys must be from 1 to 100000000",
        "--bitmap-bits 0        | --bitmap-bits must be at least 1",
        "--bits 1024            | --bits was renamed --bitmap-bits",
        "--batch-size 10        | --batch-size was renamed --batch",
        "--no-progress          | --no-progress was renamed --quiet",
        "--modes bitmap         | mode 'bitmap' is no longer a name; use bitmap-indexed",
        "--modes keys           | mode 'keys' is no longer a name; use keys-pairwise",
        "--duration fast        | Invalid value for option '--duration': 'fast' is not a duration",
        "--duration 3           | Invalid value for option '--duration': '3' has no unit",
        "--warmup 1ms           | --warmup must be from 10ms to 10m, got 1ms",
        "--runs 0               | --runs must be from 1 to 100",
        "--ordering ring-paxos  | --ordering: ordering 'ring-paxos' is no longer a name; use ringpaxos",
        "--ordering LOCAL       | --ordering: ordering 'LOCAL' must be written in lower case: local",
        "--ordering local,local | --ordering: ordering local is listed twice in 'local,local'",
        "--ordering local,raft  | --ordering: unknown ordering 'raft'",
        "--ordering nosuch      | --ordering: unknown ordering 'nosuch'",
        "--format json          | --format must be text or csv for psmr bench e2e, got 'json'",
        "--format xml           | Invalid value for option '--format'",
        "--bogus                | Unknown option: '--bogus'",
    })
    void badFlagsExitWithUsageErrorNamingTheFlag(String args, String message) {
        String[] argv = Stream.concat(Stream.of("bench", "e2e"), Stream.of(args.trim().split("\\s+"))).toArray(String[]::new);
        CliRun r = CliRun.of(argv);
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), "exit code; stderr:\n" + r.err());
        assertTrue(r.err().contains(message.trim()), "stderr should contain '" + message.trim() + "':\n" + r.err());
        assertEquals("", r.out(), "nothing on stdout");
    }

    @Test
    void helpIsListedUnderBench() {
        CliRun bench = CliRun.of("bench", "--help");
        assertEquals(0, bench.exitCode(), bench.err());
        assertTrue(bench.out().contains("e2e"), bench.out());
        CliRun e2e = CliRun.of("bench", "e2e", "--help");
        assertEquals(0, e2e.exitCode(), e2e.err());
        assertTrue(e2e.out().contains("--clients") && e2e.out().contains("--ordering"), e2e.out());
        assertTrue(e2e.err().isEmpty(), "no picocli warnings: " + e2e.err());
    }

    @Test
    void aTinyRunWritesResultsCsvWithTheExactHeaderAndSaneRows(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "e2e", "--modes", "bitmap-indexed,keys-pairwise", "--clients", "4", "--duration", "300ms",
                "--warmup", "50ms", "--runs", "1", "--batch", "20", "--window", "2", "--conflict", "20",
                "--keys", "500", "--bitmap-bits", "102400", "--format", "csv", "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        List<Path> dirs;
        try (Stream<Path> s = Files.list(tmp)) {
            dirs = s.toList();
        }
        assertEquals(1, dirs.size(), "one results folder: " + dirs);
        Path dir = dirs.get(0);
        assertTrue(dir.getFileName().toString().startsWith("bench-e2e-"), dir.toString());
        List<String> lines = Files.readAllLines(dir.resolve("results.csv"));
        assertEquals("mode,graph,batch,window,workers,clients,conflict_pct,throughput_ops,ratio_vs_cbase,"
                + "ratio_vs_sequential,mean_batch,p50_us,p99_us,p999_us,runs,ordering,ratio_vs_local", lines.get(0));
        assertEquals(E2eReport.CSV_HEADER, lines.get(0));
        assertEquals(lines, r.out().lines().toList(), "--format csv prints results.csv");

        List<String> configs = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(17, f.length, "row: " + line);
            assertEquals("local", f[15], "ordering: " + line);
            assertEquals("1.000", f[16], "local is its own reference: " + line);
            configs.add(f[0] + "," + f[1] + "," + f[2]);
            assertEquals("2", f[3], "window: " + line);
            assertEquals("4", f[5], "clients: " + line);
            assertEquals("20", f[6], "conflicts: " + line);
            assertTrue(Long.parseLong(f[7]) > 0, "throughput must be positive: " + line);
            assertTrue(Double.parseDouble(f[8]) > 0, "ratio to CBASE: " + line);
            assertTrue(Double.parseDouble(f[9]) > 0, "ratio to sequential: " + line);
            double meanBatch = Double.parseDouble(f[10]);
            assertTrue(meanBatch >= 1 && meanBatch <= Integer.parseInt(f[2]), "mean batch within the bound: " + line);
            long p50 = Long.parseLong(f[11]);
            long p99 = Long.parseLong(f[12]);
            long p999 = Long.parseLong(f[13]);
            assertTrue(p50 > 0 && p50 <= p99 && p99 <= p999, "0 < p50 <= p99 <= p999: " + line);
            assertEquals("1", f[14], "runs: " + line);
            if (f[0].equals("cbase")) {
                assertEquals("1.000", f[8], "CBASE is its own reference: " + line);
            }
            if (f[0].equals("sequential")) {
                assertEquals("none", f[1], line);
                assertEquals("1", f[4], "sequential executes on one thread: " + line);
                assertEquals("1.000", f[9], "sequential is its own reference: " + line);
            }
        }
        assertEquals(List.of("cbase,monitor,1", "bitmap-indexed,split-indexed,20", "keys-pairwise,monitor,20",
                "sequential,none,20"), configs, "CBASE first and sequential last are added; asked modes in order");
        String summary = Files.readString(dir.resolve("summary.md"));
        assertTrue(summary.contains("| ordering | mode | batch | workers |"), summary);
        assertTrue(summary.contains(" cores, Java ") && summary.contains(" collector, heap max "), "machine line: " + summary);
        assertTrue(Files.size(dir.resolve("e2e-throughput.png")) > 1000);
    }

    @Test
    void bothOrderingsRunInterleavedAndRingPaxosRowsCarryTheRatioToLocal(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "e2e", "--ordering", "both", "--modes", "bitmap-indexed", "--clients", "4", "--duration",
                "300ms", "--warmup", "50ms", "--runs", "1", "--batch", "20", "--window", "2", "--conflict", "20",
                "--keys", "500", "--bitmap-bits", "102400", "--format", "csv", "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(E2eReport.CSV_HEADER, lines.get(0));
        List<String> configs = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(17, f.length, "row: " + line);
            configs.add(f[15] + "," + f[0] + "," + f[2]);
            assertTrue(Long.parseLong(f[7]) > 0, "throughput must be positive: " + line);
            assertTrue(Double.parseDouble(f[8]) > 0 && Double.parseDouble(f[9]) > 0, "ratios within the ordering: " + line);
            double vsLocal = Double.parseDouble(f[16]);
            if (f[15].equals("local")) {
                assertEquals(1.0, vsLocal, 1e-9, line);
            } else {
                assertTrue(vsLocal >= 0, "ratio to local (speed is not asserted): " + line);
            }
            if (f[0].equals("cbase")) {
                assertEquals("1.000", f[8], "CBASE is each ordering's own reference: " + line);
            }
        }
        assertEquals(List.of("local,cbase,1", "local,bitmap-indexed,20", "local,sequential,20",
                "ringpaxos,cbase,1", "ringpaxos,bitmap-indexed,20", "ringpaxos,sequential,20"), configs);
    }

    @Test
    void allRunsLocalRingPaxosPbftAndRatisInOneInvocationWithRatiosToLocal(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "e2e", "--ordering", "all", "--modes", "bitmap-indexed", "--clients", "4", "--duration",
                "300ms", "--warmup", "50ms", "--runs", "1", "--batch", "20", "--window", "2", "--conflict", "20",
                "--keys", "500", "--bitmap-bits", "102400", "--workers", "1", "--format", "csv", "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(E2eReport.CSV_HEADER, lines.get(0));
        List<String> configs = new ArrayList<>();
        List<String> ratis = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals(17, f.length, "row: " + line);
            configs.add(f[15] + "," + f[0]);
            assertTrue(Long.parseLong(f[7]) > 0, "throughput must be positive: " + line);
            assertTrue(Double.parseDouble(f[8]) > 0 && Double.parseDouble(f[9]) > 0, "ratios within the ordering: " + line);
            double vsLocal = Double.parseDouble(f[16]);
            assertTrue(f[15].equals("local") ? vsLocal == 1.0 : vsLocal >= 0, "ratio to local (speed is not asserted): " + line);
            if (f[15].equals("ratis")) {
                ratis.add(f[0] + "," + f[1] + "," + f[2]);
                if (f[0].equals("sequential")) {
                    assertEquals("1", f[4], "sequential applies on one thread, as Ratis' updater would: " + line);
                }
            }
        }
        assertEquals(List.of("local,cbase", "local,bitmap-indexed", "local,sequential",
                "ringpaxos,cbase", "ringpaxos,bitmap-indexed", "ringpaxos,sequential",
                "pbft,cbase", "pbft,bitmap-indexed", "pbft,sequential",
                "ratis,cbase", "ratis,bitmap-indexed", "ratis,sequential"), configs);
        assertEquals(List.of("cbase,monitor,1", "bitmap-indexed,split-indexed,20", "sequential,none,20"), ratis,
                "Ratis runs CBASE, the asked mode and sequential, each with its graph and batch");
        List<Path> dirs;
        try (Stream<Path> s = Files.list(tmp)) {
            dirs = s.toList();
        }
        String summary = Files.readString(dirs.get(0).resolve("summary.md"));
        assertTrue(summary.contains("PBFT in-process (f=1, 4 replicas each executing, 2 pillars, f+1 matching replies)"), summary);
        assertTrue(summary.contains("| pbft | bitmap-indexed |"), summary);
        assertTrue(summary.contains("Apache Ratis on loopback (3 peers, Netty RPC, each executing, log fsync'd before an entry counts)"),
                summary);
        assertTrue(summary.contains("| ratis | sequential |") && summary.contains("| ratis | bitmap-indexed |"), summary);
    }

    /**
     * A comma-separated list selects those orderings, run interleaved in its order. (The Ratis runs themselves, with
     * their graphs, workers and summary line, are checked in {@link #allRunsLocalRingPaxosPbftAndRatisInOneInvocationWithRatiosToLocal}:
     * the same flags over the same embedded Ratis cluster, so a second invocation would run the same thing again.)
     */
    @Test
    void aListOfOrderingsSelectsThemInItsOrder() {
        assertEquals(List.of(OrderingProtocol.LOCAL, OrderingProtocol.RATIS), E2eOrderings.select("local,ratis"));
        assertEquals(List.of(OrderingProtocol.RATIS, OrderingProtocol.LOCAL), E2eOrderings.select("ratis,local"));
        assertEquals(List.of(OrderingProtocol.LOCAL, OrderingProtocol.RING_PAXOS, OrderingProtocol.PBFT, OrderingProtocol.RATIS),
                E2eOrderings.select("local,ringpaxos,pbft,ratis"));
        assertEquals(E2eOrderings.ENGINES, E2eOrderings.select("all"));
    }

    @Test
    void ringPaxosAloneHasNoRatioToLocal(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "e2e", "--ordering", "ringpaxos", "--modes", "sequential", "--clients", "2", "--duration",
                "200ms", "--warmup", "20ms", "--runs", "1", "--batch", "10", "--keys", "100", "--bitmap-bits", "1024",
                "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        assertTrue(r.out().contains("Ring Paxos on loopback"), r.out());
        List<Path> dirs;
        try (Stream<Path> s = Files.list(tmp)) {
            dirs = s.toList();
        }
        List<String> lines = Files.readAllLines(dirs.get(0).resolve("results.csv"));
        assertEquals(3, lines.size(), "CBASE and sequential: " + lines);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            assertEquals("ringpaxos", f[15], line);
            assertEquals("", f[16], "no local run, no ratio: " + line);
        }
    }

    @Test
    void ringPaxosReportsTheTimeFromACoordinatorKillToTheFirstNewDecision(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "e2e", "--ordering", "ringpaxos", "--modes", "sequential", "--clients", "4", "--duration",
                "400ms", "--warmup", "20ms", "--runs", "2", "--batch", "10", "--keys", "100", "--bitmap-bits", "1024",
                "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        String out = r.out();
        assertTrue(out.contains("Ring Paxos failover (2 trials, bitmap-indexed workload"), out);
        assertTrue(out.contains("kill -> first new decision") && out.contains("kill -> new coordinator"), out);
        assertTrue(out.contains("tick 5 ms") && out.contains("suspect timeout 10 ticks = 50 ms"), "the timeouts beside it: " + out);
        Path dir = onlyDir(tmp);
        assertTrue(out.contains(dir.resolve("failover.csv").toString()), "named among the files written: " + out);
        assertTrue(Files.readString(dir.resolve("summary.md")).contains("## Ring Paxos failover"));

        List<String> lines = Files.readAllLines(dir.resolve("failover.csv"));
        assertEquals("trials,kill_to_decision_ms,kill_to_decision_min_ms,kill_to_decision_max_ms,kill_to_coordinator_ms,"
                + "kill_to_coordinator_min_ms,kill_to_coordinator_max_ms,drained,earliest_takeover_ms,tick_ms,heartbeat_ticks,"
                + "suspect_ticks,suspect_ms,proposer_retry_ticks", lines.get(0));
        assertEquals(E2eReport.FAILOVER_CSV_HEADER, lines.get(0));
        assertEquals(2, lines.size(), "one row: " + lines);
        String[] f = lines.get(1).split(",", -1);
        assertEquals(14, f.length, lines.get(1));
        assertEquals("2", f[0], "trials = --runs: " + lines.get(1));
        double decision = Double.parseDouble(f[1]);
        double coordinator = Double.parseDouble(f[4]);
        assertTrue(Double.parseDouble(f[2]) > 0 && Double.parseDouble(f[2]) <= decision && decision <= Double.parseDouble(f[3]),
                "0 < min <= median <= max, kill -> first new decision: " + lines.get(1));
        assertTrue(Double.parseDouble(f[5]) > 0 && Double.parseDouble(f[5]) <= coordinator
                && coordinator <= Double.parseDouble(f[6]), "0 < min <= median <= max, kill -> new coordinator: " + lines.get(1));
        assertTrue(Double.parseDouble(f[7]) >= 0, "drained: " + lines.get(1));
        assertTrue(Double.parseDouble(f[2]) >= Double.parseDouble(f[8]),
                "no new decision before the earliest takeover (speed is not asserted): " + lines.get(1));
        assertEquals(List.of("5", "2", "10", "50", "20"), List.of(f[9], f[10], f[11], f[12], f[13]), lines.get(1));
    }

    @Test
    void theLocalSequencerAloneHasNoFailover(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "e2e", "--ordering", "local", "--modes", "sequential", "--clients", "2", "--duration",
                "200ms", "--warmup", "20ms", "--runs", "1", "--batch", "10", "--keys", "100", "--bitmap-bits", "1024",
                "--quiet", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        assertTrue(r.out().contains("x CBASE"), "the table is printed: " + r.out());
        assertFalse(r.out().toLowerCase(Locale.ROOT).contains("failover"), r.out());
        assertFalse(r.out().contains("kill ->"), r.out());
        Path dir = onlyDir(tmp);
        assertFalse(Files.exists(dir.resolve("failover.csv")), "no failover.csv without Ring Paxos");
        assertFalse(Files.readString(dir.resolve("summary.md")).contains("failover"));
    }

    private static Path onlyDir(Path tmp) throws IOException {
        try (Stream<Path> s = Files.list(tmp)) {
            List<Path> dirs = s.toList();
            assertEquals(1, dirs.size(), "one results folder: " + dirs);
            return dirs.get(0);
        }
    }
}
