package io.psmr.bench.e2e;

import io.psmr.bench.stats.JvmCollector;
import io.psmr.ordering.OrderingProtocol;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.Locale;
import java.util.Optional;

/**
 * The outputs of {@code psmr bench e2e}: the table, results.csv, summary.md, and failover.csv when Ring Paxos is
 * measured. The chart is {@link E2eCharts}.
 */
public final class E2eReport {

    /** The exact header of results.csv. */
    public static final String CSV_HEADER = "mode,graph,batch,window,workers,clients,conflict_pct,throughput_ops,"
            + "ratio_vs_cbase,ratio_vs_sequential,mean_batch,p50_us,p99_us,p999_us,runs,ordering,ratio_vs_local";

    /**
     * The columns results.csv adds after {@link #CSV_HEADER} when a sweep flag was given ({@link E2eSweep#given()}):
     * the sweep point (pillars and rotation empty but for pbft), the throughput's range and per core, and under pbft
     * the bytes replicas sent per acknowledged operation (leader: the most of any one replica, with fixed leaders the
     * primary's, median with min and max over the runs; mean: averaged over the replicas), and under mlbft the deadlocks
     * a replica resolved per run (median, min, max).
     */
    public static final String SWEEP_COLUMNS = "pillars,leader_rotation,cross_partition_pct,partitions,throughput_min_ops,"
            + "throughput_max_ops,ops_per_core,leader_bytes_per_op,leader_bytes_min,leader_bytes_max,mean_bytes_per_op,"
            + "deadlocks,deadlocks_min,deadlocks_max";

    /** The file of the failover trials, written only when Ring Paxos is measured. */
    public static final String FAILOVER_CSV = "failover.csv";

    /** The exact header of failover.csv: one row, times in milliseconds. */
    public static final String FAILOVER_CSV_HEADER = "trials,kill_to_decision_ms,kill_to_decision_min_ms,"
            + "kill_to_decision_max_ms,kill_to_coordinator_ms,kill_to_coordinator_min_ms,kill_to_coordinator_max_ms,"
            + "drained,earliest_takeover_ms,tick_ms,heartbeat_ticks,suspect_ticks,suspect_ms,proposer_retry_ticks";

    private E2eReport() {
    }

    /** Worker threads of the row: 1 for sequential (the delivery thread executes), else the setting. */
    static int workers(E2eResult r, E2eSettings s) {
        if (r.ordering() == OrderingProtocol.MLBFT) {
            return s.sweep().mlbftPartitions(); // one worker per partition
        }
        return r.mode().parallel() ? s.workers() : 1;
    }

    /** results.csv: the header, then one row per (ordering, mode) in report order. NaN columns are empty. */
    public static String csv(List<E2eResult> results, E2eSettings s) {
        boolean sweep = s.sweep().given();
        StringBuilder b = new StringBuilder(CSV_HEADER).append(sweep ? "," + SWEEP_COLUMNS : "").append('\n');
        for (E2eResult r : results) {
            b.append(r.modeName()).append(',').append(r.ordering() == OrderingProtocol.MLBFT ? "none"
                    : io.psmr.bench.scheduler.BenchReport.graphColumn(r.mode())).append(',')
                    .append(r.batch()).append(',').append(s.window()).append(',').append(workers(r, s)).append(',')
                    .append(s.clients()).append(',').append(s.conflictPct()).append(',')
                    .append(Math.round(r.throughputOps())).append(',')
                    .append(num(r.ratioVsCbase(), "%.3f")).append(',')
                    .append(num(r.ratioVsSequential(), "%.3f")).append(',')
                    .append(num(r.meanBatch(), "%.1f")).append(',')
                    .append(r.p50Micros()).append(',').append(r.p99Micros()).append(',').append(r.p999Micros()).append(',')
                    .append(r.runs()).append(',').append(r.ordering().cliName()).append(',')
                    .append(num(r.ratioVsLocal(), "%.3f"));
            if (sweep) {
                E2eVariant v = r.variant();
                b.append(',').append(v.pillars() > 0 ? Integer.toString(v.pillars()) : "").append(',')
                        .append(v.rotationName()).append(',').append(v.crossPct()).append(',').append(s.sweep().partitions())
                        .append(',').append(Math.round(r.minOps())).append(',').append(Math.round(r.maxOps())).append(',')
                        .append(Math.round(r.throughputOps() / s.cores())).append(',')
                        .append(num(r.leaderBytesPerOp(), "%.1f")).append(',').append(num(r.leaderBytesMin(), "%.1f"))
                        .append(',').append(num(r.leaderBytesMax(), "%.1f")).append(',')
                        .append(num(r.meanBytesPerOp(), "%.1f")).append(',').append(num(r.deadlocks(), "%.0f"))
                        .append(',').append(num(r.deadlocksMin(), "%.0f")).append(',').append(num(r.deadlocksMax(), "%.0f"));
            }
            b.append('\n');
        }
        return b.toString();
    }

    /** The table on stdout. */
    public static void table(List<E2eResult> results, E2eSettings s, PrintWriter out) {
        boolean sweep = s.sweep().given();
        out.printf(Locale.ROOT, "%-9s %-15s %5s %5s %22s %8s %8s %8s %7s %9s %9s %9s%s%n", "ordering", "mode", "batch", "thr",
                "kops/s median [min-max]", "x CBASE", "x seq", "x local", "mean b", "p50 us", "p99 us", "p999 us",
                sweep ? String.format(Locale.ROOT, " %3s %-8s %4s %22s %8s", "Np", "leaders", "x%", "leader B/op [min-max]",
                        "mean B/op") : "");
        for (E2eResult r : results) {
            String k = String.format(Locale.ROOT, "%.1f [%.1f-%.1f]", r.throughputOps() / 1e3, r.minOps() / 1e3,
                    r.maxOps() / 1e3);
            out.printf(Locale.ROOT, "%-9s %-15s %5d %5s %22s %8s %8s %8s %7s %9d %9d %9d%s%n", r.ordering().cliName(),
                    r.modeName(), r.batch(), r.ordering() == OrderingProtocol.MLBFT || r.mode().parallel()
                            ? Integer.toString(workers(r, s)) : "-", k,
                    dash(r.ratioVsCbase()), dash(r.ratioVsSequential()), dash(r.ratioVsLocal()), num(r.meanBatch(), "%.1f"),
                    r.p50Micros(), r.p99Micros(), r.p999Micros(), sweep ? " " + sweepCells(r) : "");
        }
        long retries = results.stream().mapToLong(E2eResult::retries).sum();
        if (retries > 0) {
            out.printf(Locale.ROOT, "(the proxy retried %d batches over the measured runs)%n", retries);
        }
        out.flush();
    }

    /** The sweep's cells of a row of the text table: pillars, leaders, cross-partition share, bytes per operation. */
    static String sweepCells(E2eResult r) {
        E2eVariant v = r.variant();
        String leader = Double.isNaN(r.leaderBytesPerOp()) ? "-" : String.format(Locale.ROOT, "%.0f [%.0f-%.0f]",
                r.leaderBytesPerOp(), r.leaderBytesMin(), r.leaderBytesMax());
        return String.format(Locale.ROOT, "%3s %-8s %4d %22s %8s", v.pillars() > 0 ? Integer.toString(v.pillars()) : "-",
                v.rotation() == null ? "-" : v.rotationName(), v.crossPct(), leader,
                Double.isNaN(r.meanBytesPerOp()) ? "-" : String.format(Locale.ROOT, "%.0f", r.meanBytesPerOp()));
    }

    /** failover.csv: the header and one row. */
    public static String failoverCsv(E2eFailoverResult f) {
        return FAILOVER_CSV_HEADER + "\n" + String.format(Locale.ROOT,
                "%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f,%d,%d,%d,%d,%d,%d%n",
                f.trials(), f.killToDecisionMs(), f.killToDecisionMinMs(), f.killToDecisionMaxMs(), f.killToCoordinatorMs(),
                f.killToCoordinatorMinMs(), f.killToCoordinatorMaxMs(), f.drained(), f.earliestTakeoverMs(), f.tickMs(), f.heartbeatTicks(), f.suspectTicks(),
                f.suspectMs(), f.proposerRetryTicks());
    }

    /** The failover lines on stdout, below the table. */
    public static void failoverTable(E2eFailoverResult f, PrintWriter out) {
        out.printf(Locale.ROOT, "Ring Paxos failover (%d trials, %s workload, coordinator closed at half the run):%n",
                f.trials(), E2eBench.FAILOVER_MODE.cliName());
        out.printf(Locale.ROOT, "  kill -> first new decision   %.1f ms median [%.1f-%.1f]%n", f.killToDecisionMs(),
                f.killToDecisionMinMs(), f.killToDecisionMaxMs());
        out.printf(Locale.ROOT, "  kill -> new coordinator      %.1f ms median [%.1f-%.1f] (seen at a tick: up to 1 tick late)%n",
                f.killToCoordinatorMs(), f.killToCoordinatorMinMs(), f.killToCoordinatorMaxMs());
        out.printf(Locale.ROOT, "  (median %.0f decisions of the dead coordinator, already on the ring, delivered in the "
                + "first %d ms, the earliest a successor can take over, are not counted as new)%n", f.drained(),
                f.earliestTakeoverMs());
        out.println("  " + failoverTimeouts(f));
        out.flush();
    }

    /** The protocol timeouts that dominate the failover times, one line. */
    static String failoverTimeouts(E2eFailoverResult f) {
        return String.format(Locale.ROOT, "tick %d ms, heartbeat every %d ticks, suspect timeout %d ticks = %d ms, "
                        + "proposer retry %d ticks = %d ms", f.tickMs(), f.heartbeatTicks(), f.suspectTicks(), f.suspectMs(),
                f.proposerRetryTicks(), f.tickMs() * f.proposerRetryTicks());
    }

    /** The machine (cores, JVM, this process's collector and heap) and settings, one line. */
    public static String machine(E2eSettings s) {
        return String.format(Locale.ROOT, "%d cores, Java %s (%s), %s, %s %s; 1 replica over %s, "
                        + "%d closed-loop clients, one proxy (batch <= %s, window %d), %d workers, %d%% hot-key batches, "
                        + "%d keys%s, m = %,d bits; %d measured runs of %d ms after a %d ms warm-up per mode",
                s.cores(), System.getProperty("java.version"), System.getProperty("java.vm.name"),
                JvmCollector.describe(), System.getProperty("os.name"), System.getProperty("os.arch"), orderings(s), s.clients(), join(s.sweep().batches()),
                s.window(), s.workers(), s.conflictPct(), s.keys(), partitions(s), s.bitmapBits(), s.runs(), s.duration().toMillis(),
                s.warmup().toMillis());
    }

    /** Values joined by slashes: {@code 1/2/4}. */
    static String join(List<Integer> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining("/"));
    }

    /** The key partitions and cross-partition shares, in words; empty without partitions. */
    static String partitions(E2eSettings s) {
        if (s.sweep().partitions() == 0) {
            return "";
        }
        return String.format(Locale.ROOT, " in %d partitions (key k in k mod %d), %s%% of operations two-partition MULTI_PUTs",
                s.sweep().partitions(), s.sweep().partitions(), join(s.sweep().crossPcts()));
    }

    /** The orderings of the settings, in words. */
    static String orderings(E2eSettings s) {
        List<String> words = new ArrayList<>();
        for (OrderingProtocol o : s.orderings()) {
            words.add(switch (o) {
                case LOCAL -> "the local sequencer";
                case RING_PAXOS -> "Ring Paxos on loopback (3 acceptors, tick "
                        + E2eBench.RING_PAXOS_TRANSPORT.tickInterval().toMillis() + " ms)";
                case PBFT -> "PBFT in-process (f=" + E2eBench.PBFT.f() + ", " + E2eBench.PBFT.replicaCount()
                        + " replicas each executing, " + join(s.sweep().pillars()) + " pillars, "
                        + (s.sweep().given() ? s.sweep().rotations().stream().map(r -> r.name().toLowerCase(Locale.ROOT))
                                .collect(Collectors.joining("/")) + " leaders, " : "")
                        + "f+1 matching replies)";
                case MLBFT -> "MLBFT in-process (f=1, 4 replicas each executing, " + s.sweep().mlbftPartitions()
                        + " PBFT instances of one pillar, one per partition, f+1 matching replies)";
                case RATIS -> "Apache Ratis on loopback (" + E2eBench.RATIS_PEERS + " peers, Netty RPC, each executing, log fsync'd"
                        + " before an entry counts)";
                default -> o.description();
            });
        }
        return words.size() <= 2 ? String.join(" and ", words)
                : String.join(", ", words.subList(0, words.size() - 1)) + " and " + words.get(words.size() - 1);
    }

    /** summary.md: settings, the table with min and max, and how to read it; then the failover trials, if any. */
    public static String summaryMarkdown(List<E2eResult> results, Optional<E2eFailoverResult> failover, E2eSettings s,
            String timestamp) {
        StringWriter sw = new StringWriter();
        PrintWriter o = new PrintWriter(sw);
        o.println("# psmr bench e2e " + timestamp);
        o.println();
        o.println("Machine and settings: " + machine(s) + ".");
        o.println();
        o.println("Closed-loop clients -> client proxy -> ordering -> one replica (pbft: 4, ratis: 3, each executing). Throughput is acknowledged "
                + "operations per second (median of the measured runs, with min and max); `x CBASE` and `x seq` are "
                + "ratios to the CBASE and sequential medians of this invocation over the same ordering; `x local` is the "
                + "ratio to the same mode over the local sequencer in this invocation; `mean batch` is the proxy's mean client "
                + "commands per batch; latency is from submit to reply, as the client sees it, all measured runs merged. "
                + "Clients, proxy and replica share the " + s.cores() + " cores.");
        o.println();
        boolean sweep = s.sweep().given();
        o.println("| ordering | mode | batch | workers | kops/s | min-max | x CBASE | x seq | x local | mean batch | p50 us "
                + "| p99 us | p999 us |" + (sweep ? " Np | leaders | cross % | kops/s per core | leader B/op | min-max "
                + "| mean B/op |" : ""));
        o.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + (sweep ? "---:|---|---:|---:|---:|---:|---:|" : ""));
        for (E2eResult r : results) {
            o.printf(Locale.ROOT, "| %s | %s | %d | %d | %.1f | %.1f-%.1f | %s | %s | %s | %s | %d | %d | %d |%s%n",
                    r.ordering().cliName(), r.modeName(), r.batch(), workers(r, s), r.throughputOps() / 1e3, r.minOps() / 1e3,
                    r.maxOps() / 1e3, dash(r.ratioVsCbase()), dash(r.ratioVsSequential()), dash(r.ratioVsLocal()),
                    num(r.meanBatch(), "%.1f"), r.p50Micros(), r.p99Micros(), r.p999Micros(), sweep ? sweepMarkdown(r, s) : "");
        }
        if (sweep) {
            o.println();
            o.println("Sweep columns: `Np` and `leaders` are PBFT's pillars per replica and leader rotation; `cross %` the "
                    + "share of operations that are MULTI_PUTs over two key partitions; `kops/s per core` the median over the "
                    + s.cores() + " cores of this machine (every replica, proxy and client share them); `leader B/op` the most "
                    + "bytes any one PBFT replica sent to the others per acknowledged operation (with fixed leaders, the "
                    + "primary's; with rotating leaders every replica leads some instances), median [min-max] over the runs; "
                    + "`mean B/op` the same averaged over the replicas. Replies to clients are in-process and not counted.");
        }
        failover.ifPresent(f -> {
            o.println();
            o.println("## Ring Paxos failover");
            o.println();
            o.printf(Locale.ROOT, "%d trials of the %s workload, each over a fresh cluster; the coordinator's acceptor is "
                    + "closed at half the run. The clock starts just before the close and stops when a second learner on the "
                    + "replica's adapter is delivered the first instance beyond the last one ordered before the close, no "
                    + "earlier than %d ms after it, the earliest a successor can take over (first new decision; median %.0f "
                    + "decisions the dead coordinator had already sent along the ring were delivered before), and when the "
                    + "next acceptor is seen as sole coordinator (at a tick). The new coordinator is bounded by the suspect "
                    + "timeout and its Phase 1; the new decision also by the proposer's retry, since proposals the dead "
                    + "coordinator held are resent only then: %s. Clients, proxy, replica and acceptors share the %d cores.%n", f.trials(),
                    E2eBench.FAILOVER_MODE.cliName(), f.earliestTakeoverMs(), f.drained(), failoverTimeouts(f), s.cores());
            o.println();
            o.println("| from the kill to | median ms | min ms | max ms |");
            o.println("|---|---:|---:|---:|");
            o.printf(Locale.ROOT, "| first new decision | %.1f | %.1f | %.1f |%n", f.killToDecisionMs(),
                    f.killToDecisionMinMs(), f.killToDecisionMaxMs());
            o.printf(Locale.ROOT, "| new coordinator | %.1f | %.1f | %.1f |%n", f.killToCoordinatorMs(),
                    f.killToCoordinatorMinMs(), f.killToCoordinatorMaxMs());
        });
        o.flush();
        return sw.toString();
    }

    /** Writes results.csv and summary.md into {@code dir}, and failover.csv when there were failover trials. */
    public static void write(Path dir, List<E2eResult> results, Optional<E2eFailoverResult> failover, E2eSettings s,
            String timestamp) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("results.csv"), csv(results, s), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("summary.md"), summaryMarkdown(results, failover, s, timestamp), StandardCharsets.UTF_8);
        if (failover.isPresent()) {
            Files.writeString(dir.resolve(FAILOVER_CSV), failoverCsv(failover.get()), StandardCharsets.UTF_8);
        }
    }

    private static String sweepMarkdown(E2eResult r, E2eSettings s) {
        E2eVariant v = r.variant();
        return String.format(Locale.ROOT, " %s | %s | %d | %.1f | %s | %s | %s |", v.pillars() > 0 ? v.pillars() : "-",
                v.rotation() == null ? "-" : v.rotationName(), v.crossPct(), r.throughputOps() / 1e3 / s.cores(),
                dash0(r.leaderBytesPerOp()), Double.isNaN(r.leaderBytesMin()) ? "-"
                        : String.format(Locale.ROOT, "%.0f-%.0f", r.leaderBytesMin(), r.leaderBytesMax()),
                dash0(r.meanBytesPerOp()));
    }

    private static String dash0(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f", v);
    }

    private static String dash(double v) {
        String s = num(v, "%.2f");
        return s.isEmpty() ? "-" : s;
    }

    private static String num(double v, String format) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "" : String.format(Locale.ROOT, format, v);
    }
}
