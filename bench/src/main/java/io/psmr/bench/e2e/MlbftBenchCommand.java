package io.psmr.bench.e2e;

import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.OptionRanges;
import io.psmr.bench.cli.OutputOptions;
import io.psmr.bench.cli.ResultsDir;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.mlbft.PartitionMap;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.simulation.progress.Progress;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr bench mlbft}: the MLBFT thesis' §4.3 comparison on this machine. Three configurations over the same
 * replicas (4, f = 1), clients and keys: MLBFT with P partitions, COP-PBFT with P pillars and the bitmap scheduler, and
 * COP-PBFT with P pillars executing sequentially (the thesis' single-leader reference, "SL"). Each figure is one
 * {@link E2eBench} invocation per workload, its runs interleaved over the three; see {@link MlbftFigures}.
 */
@Command(name = "mlbft",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "MLBFT against COP-PBFT (the MLBFT thesis, section 4.3, on this machine): MLBFT with --partitions P (one PBFT "
                + "instance and one worker per partition, never merged), COP-PBFT with P pillars and the bitmap scheduler "
                + "(bitmap-indexed), and COP-PBFT with P pillars executing sequentially (the thesis' single-leader "
                + "reference, SL); 4 replicas (f = 1) in one JVM, the same clients and keys, key k in partition k mod P.",
            "",
            "Figures: 4.10 throughput by --cross-border share (two-partition MULTI_PUTs); 4.13 MLBFT's deadlocks by the "
                + "same share; 4.11 throughput by --client-counts at each --client-cross share; 4.16 throughput by "
                + "--read-shares (no cross-border operations). Each workload is one bench e2e invocation: a warm-up run "
                + "of every configuration, then --runs rounds running each once, so drift hits all three alike; before "
                + "the first, --jvm-warmup runs each configuration once unmeasured.",
            "",
            "Writes results.csv, summary.md (medians with min and max, ratios to SL and to COP-PBFT with the bitmap "
                + "scheduler, the core count) and fig-4.10-cross-border.png, fig-4.11-clients.png, "
                + "fig-4.13-deadlocks.png, fig-4.16-read-share.png (whiskers: min and max) to "
                + "<out>/bench-mlbft-<timestamp>/.",
            "",
            "Default: about 10 minutes on 2 cores.",
            ""})
public final class MlbftBenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--figures", paramLabel = "FIG", split = ",", defaultValue = "4.10,4.11,4.16",
            description = "Figures to run: 4.10 (with 4.13), 4.11, 4.16 (default: ${DEFAULT-VALUE}).")
    List<String> figures;

    @Option(names = "--partitions", paramLabel = "P", defaultValue = "4",
            description = "MLBFT's partitions and COP-PBFT's pillars, 2 to 64 (default: ${DEFAULT-VALUE}, the thesis').")
    int partitions;

    @Option(names = "--cross-border", paramLabel = "PCT", split = ",", defaultValue = "0,1,10,15,50,100",
            description = "Fig. 4.10 and 4.13: percentages of two-partition MULTI_PUTs (default: ${DEFAULT-VALUE}).")
    List<Integer> crossBorder;

    @Option(names = "--client-counts", paramLabel = "N", split = ",", defaultValue = "4,16,64",
            description = "Fig. 4.11: closed-loop clients, 1 to 10000 each (default: ${DEFAULT-VALUE}).")
    List<Integer> clientCounts;

    @Option(names = "--client-cross", paramLabel = "PCT", split = ",", defaultValue = "0,1,15,50",
            description = "Fig. 4.11: cross-border shares at each client count (default: ${DEFAULT-VALUE}).")
    List<Integer> clientCross;

    @Option(names = "--read-shares", paramLabel = "PCT", split = ",", defaultValue = "0,50,90,100",
            description = "Fig. 4.16: percentages of READs (default: ${DEFAULT-VALUE}).")
    List<Integer> readShares;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "64",
            description = "Closed-loop clients of Fig. 4.10 and 4.16 (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "10000", description = "Key space (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--batch", paramLabel = "B", defaultValue = "200",
            description = "Most client commands per batch, " + OptionRanges.BATCH + " (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(names = "--window", paramLabel = "N", defaultValue = "4",
            description = "Batches a proxy keeps outstanding, 1 to 256, under both orderings (default: ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--workers", paramLabel = "N",
            description = "Scheduler workers of COP-PBFT's replicas, " + OptionRanges.WORKERS + " (default: available processors).")
    Integer workers;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "2s", converter = DurationConverter.class,
            description = "Length of each measured run, 100ms to 10m (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--warmup", paramLabel = "TIME", defaultValue = "1s", converter = DurationConverter.class,
            description = "Length of each configuration's warm-up run, 100ms to 10m (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--jvm-warmup", paramLabel = "TIME", defaultValue = "5s", converter = DurationConverter.class,
            description = "Before the first figure, an unmeasured run of this length of each configuration, so that the JIT "
                    + "has compiled all three before anything is measured; 0s for none (default: ${DEFAULT-VALUE}).")
    Duration jvmWarmup;

    @Option(names = "--runs", paramLabel = "R", defaultValue = "3",
            description = "Measured runs per configuration, 1 to 100 (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "Clients' seed (default: ${DEFAULT-VALUE}).")
    long seed;

    /** --quiet. */
    @Mixin
    OutputOptions output;

    /** --out: the folder that receives bench-mlbft-&lt;timestamp&gt;/. */
    @Mixin
    OutputOptions.OutDir out;

    @Override
    public Integer call() throws InterruptedException, IOException {
        List<MlbftFigures.Workload> workloads = validate();
        PrintWriter o = spec.commandLine().getOut();
        int cores = Runtime.getRuntime().availableProcessors();
        String timestamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = ResultsDir.unique(out.path(), "bench-mlbft-" + timestamp);
        int totalRuns = 0;
        for (MlbftFigures.Workload w : workloads) {
            totalRuns += new E2eBench(w.settings()).totalRuns();
        }
        if (!output.quiet()) {
            o.printf(Locale.ROOT, "psmr bench mlbft: %d cores; MLBFT with %d partitions, COP-PBFT with %d pillars (bitmap-indexed "
                    + "and sequential), 4 replicas (f=1); %d workloads, %d runs of %d ms after a %d ms warm-up each; about %d s%n",
                    cores, partitions, partitions, workloads.size(), totalRuns, duration.toMillis(), warmup.toMillis(),
                    (long) totalRuns * (duration.toMillis() + 500) / 1000);
            o.flush();
        }
        List<MlbftFigures.Row> rows = new ArrayList<>();
        E2eSettings warm = warmupSettings(workloads.get(0).settings());
        if (warm != null) {
            totalRuns += new E2eBench(warm).totalRuns();
        }
        try (Progress bar = output.quiet() ? null : Progress.onStderr("bench mlbft", totalRuns, "runs", false)) {
            if (warm != null) {
                new E2eBench(warm).run(m -> {
                    if (bar != null) {
                        bar.step();
                    }
                });
            }
            for (MlbftFigures.Workload w : workloads) {
                List<E2eResult> results = new E2eBench(w.settings()).run(m -> {
                    if (bar != null) {
                        bar.step();
                    }
                });
                rows.addAll(MlbftFigures.rows(w, results));
            }
        }
        List<Path> written = MlbftFigures.write(dir, rows, workloads.get(0).settings(), cores);
        if (!output.quiet()) {
            o.println();
            MlbftFigures.table(rows, o);
            o.println();
            o.println("wrote " + String.join(", ", written.stream().map(Path::toString).toList()));
        }
        o.flush();
        return 0;
    }

    /** The JVM's warm-up: {@code s} at its first point, one unmeasured run of {@code --jvm-warmup}; null for none. */
    private E2eSettings warmupSettings(E2eSettings s) {
        if (jvmWarmup.isZero()) {
            return null;
        }
        E2eSweep first = new E2eSweep(s.sweep().pillars(), s.sweep().rotations(), s.sweep().batches(),
                List.of(s.sweep().crossPcts().get(0)), s.sweep().partitions(), true);
        return new E2eSettings(s.orderings(), s.modes(), s.workload(), s.workers(), s.batch(), s.window(), s.conflictPct(),
                s.bitmapBits(), 1, jvmWarmup, jvmWarmup, s.seed(), s.cores(), s.outDir(), first);
    }

    List<MlbftFigures.Workload> validate() {
        LinkedHashSet<String> figs = new LinkedHashSet<>(figures);
        for (String f : figs) {
            require(List.of("4.10", "4.11", "4.16").contains(f), "--figures takes 4.10, 4.11 and 4.16 (4.13 comes with 4.10), got '"
                    + f + "'");
        }
        require(partitions >= 2 && partitions <= PartitionMap.MAX_PARTITIONS, "--partitions must be from 2 to "
                + PartitionMap.MAX_PARTITIONS + ", got " + partitions);
        OptionRanges.pillars(spec.commandLine(), List.of(partitions));
        percentages("--cross-border", crossBorder);
        percentages("--client-cross", clientCross);
        percentages("--read-shares", readShares);
        for (int c : clientCounts) {
            require(c >= 1 && c <= 10_000, "--client-counts must each be from 1 to 10000, got " + c);
        }
        require(clients >= 1 && clients <= 10_000, "--clients must be from 1 to 10000, got " + clients);
        require(keys >= 4 * partitions && keys <= 100_000_000, "--keys must be from 4 x --partitions (" + 4 * partitions
                + ": four MULTI_PUT keys in each partition) to 100000000, got " + keys);
        OptionRanges.batch(spec.commandLine(), List.of(batch));
        require(window >= 1 && window <= 256, "--window must be from 1 to 256, got " + window);
        int w = workers != null ? workers : Runtime.getRuntime().availableProcessors();
        OptionRanges.workers(spec.commandLine(), w);
        require(duration.toMillis() >= 100 && duration.toMillis() <= 600_000, "--duration must be from 100ms to 10m, got "
                + DurationConverter.format(duration));
        require(warmup.toMillis() >= 100 && warmup.toMillis() <= 600_000, "--warmup must be from 100ms to 10m, got "
                + DurationConverter.format(warmup));
        require(runs >= 1 && runs <= 100, "--runs must be from 1 to 100, got " + runs);
        require(jvmWarmup.isZero() || (jvmWarmup.toMillis() >= 100 && jvmWarmup.toMillis() <= 600_000),
                "--jvm-warmup must be 0s or from 100ms to 10m, got " + DurationConverter.format(jvmWarmup));
        List<MlbftFigures.Workload> out = new ArrayList<>();
        if (figs.contains("4.10")) {
            out.add(workload("4.10", clients, 50, crossBorder, w));
        }
        if (figs.contains("4.11")) {
            for (int c : clientCounts) {
                out.add(workload("4.11", c, 50, clientCross, w));
            }
        }
        if (figs.contains("4.16")) {
            for (int r : readShares) {
                out.add(workload("4.16", clients, r, List.of(0), w));
            }
        }
        return out;
    }

    private MlbftFigures.Workload workload(String figure, int clientCount, int readPct, List<Integer> cross, int w) {
        double read = readPct / 100.0;
        double multiPut = Math.min(0.05, 1 - read);
        WorkloadSpec spec = new WorkloadSpec(clientCount, keys, read, multiPut, 4, 64, duration, 0, seed, partitions, 0);
        E2eSweep sweep = new E2eSweep(List.of(partitions), List.of(LeaderRotation.ROTATING), List.of(batch),
                List.copyOf(new LinkedHashSet<>(cross)), partitions, true);
        E2eSettings s = new E2eSettings(List.of(OrderingProtocol.PBFT, OrderingProtocol.MLBFT),
                List.of(SchedulerMode.BITMAP_INDEXED, SchedulerMode.SEQUENTIAL), spec, w, batch, window, 0,
                io.psmr.scheduler.ConflictDetection.DEFAULT_BITMAP_BITS, runs, warmup, duration, seed,
                Runtime.getRuntime().availableProcessors(), out.path(), sweep);
        return new MlbftFigures.Workload(figure, clientCount, readPct, s);
    }

    private void percentages(String flag, List<Integer> values) {
        for (int v : values) {
            require(v >= 0 && v <= 100, flag + " must be percentages from 0 to 100, got " + v);
        }
        require(new LinkedHashSet<>(values).size() == values.size(), flag + " lists a value twice: " + values);
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
