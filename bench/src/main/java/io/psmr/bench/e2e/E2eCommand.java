package io.psmr.bench.e2e;

import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.OptionRanges;
import io.psmr.bench.cli.OutputFormat;
import io.psmr.bench.cli.OutputOptions;
import io.psmr.bench.cli.ResultsDir;
import io.psmr.bench.cli.SchedulerModeConverter;
import io.psmr.bench.cli.RotationConverter;
import io.psmr.bench.load.WorkloadOptions;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.simulation.progress.Progress;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr bench e2e}: the end-to-end benchmark, see {@link E2eBench}.
 *
 * <p>Exit codes: 0 done, 1 failed (a run failed its checks, or the results folder cannot be
 * written), 2 bad usage, with a message naming the flag.
 */
@Command(name = "e2e",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "End-to-end benchmark: closed-loop clients -> client proxy -> ordering -> one replica, per mode and ordering.",
            "",
            "Each run starts a fresh embedded replica (its own scheduler and in-memory Chronicle Map) and a batching "
                + "proxy, and drives them with the clients of ./psmr load (by default 50%% READs, 5%% MULTI_PUTs of 4 keys, "
                + "the rest CREATE/UPDATE/DELETE; 64-byte values). Every mode gets a warm-up run, then --runs measured runs, "
                + "interleaved (A B C ... A B C ...). Prints a table of median throughput with min and max, the ratios "
                + "to CBASE and to sequential measured in the same invocation, and client latency; writes results.csv, "
                + "summary.md and e2e-throughput.png to <out>/bench-e2e-<timestamp>/. A run fails unless the replica "
                + "served and every operation got a non-error answer.",
            "",
            "Modes: cbase (batches of 1, exact keys compared pairwise, monitor graph), keys-pairwise (the same at --batch), "
                + "bitmap-monitor, bitmap-indexed, rw-bitmap (indexed graph), sequential (no scheduler), keys-hashed "
                + "(extra, only when asked). The cbase and sequential references are always added.",
            "",
            "Orderings: local (the in-process sequencer), ringpaxos (an embedded Ring Paxos cluster on loopback: 3 "
                + "acceptors, the replica's learner and the proxy's proposer), both (interleaved, with the ratio "
                + "ringpaxos/local from the same invocation), pbft (PBFT with 2 COP pillars in-process: 4 PBFT replicas, each with "
                + "its own executing replica, the proxy accepting f+1 = 2 matching replies), ratis (Apache Ratis: 3 peers on "
                + "loopback over Ratis' Netty RPC, each executing with psmr as its state machine, every log entry fsync'd before it counts; "
                + "sequential is Ratis' usual single-threaded apply), a comma-separated list of these (e.g. "
                + "local,ringpaxos,ratis: interleaved, in that order), mlbft (the multi-leader baseline: one PBFT instance per "
                + "key partition, --partitions of them (default 4), never merged, each partition run by its own worker; one row per "
                + "sweep point, whatever --modes, with the deadlocks its replicas resolved and its ratio to pbft's sequential "
                + "execution; docs/mlbft.md), all (every engine: local, ringpaxos, pbft and ratis, interleaved; mlbft runs "
                + "only when named).",
            "",
            "Failover (ringpaxos, both and all): after the measured runs, --runs trials of the bitmap-indexed workload over a "
                + "fresh Ring Paxos cluster close the coordinator's acceptor at half the run and time, from just before "
                + "the close, the first new decision (the first instance delivered beyond the last one ordered before the close, "
                + "once the dead coordinator's in-flight decisions are past), and the next coordinator's election; median, min and max in ms, next to the tick and suspect timeout that dominate "
                + "them; written to failover.csv.",
            "",
            "Sweeps: --pillars, --leader-rotation (pbft), --batch and --cross-partition (with --partitions) take "
                + "comma-separated values; every (ordering, mode) runs at every point of their product that applies to it, "
                + "and results.csv, summary.md and the table add the sweep's columns (pillars, leaders, cross-partition share, "
                + "the bytes PBFT replicas send per operation: the leader's, i.e. the most of any one replica, and the mean), "
                + "with e2e-pillars.png and e2e-leader-bytes.png (pbft), e2e-cross-partition.png and e2e-cross-partition-relative.png (--partitions). With a sweep flag, --modes runs "
                + "exactly the modes named (no CBASE and sequential references added).",
            "",
            "Default: every mode but keys-hashed, 3 runs of 3 s after a 1 s warm-up: about 70 s on 2 cores.",
            ""})
public final class E2eCommand implements Callable<Integer> {

    static final List<SchedulerMode> DEFAULT_MODES = List.of(SchedulerMode.CBASE, SchedulerMode.KEYS_PAIRWISE,
            SchedulerMode.BITMAP_MONITOR, SchedulerMode.BITMAP_INDEXED, SchedulerMode.RW_BITMAP, SchedulerMode.SEQUENTIAL);

    @Spec
    CommandSpec spec;

    @Option(names = "--modes", split = ",", paramLabel = "MODE", converter = SchedulerModeConverter.class,
            description = "Scheduler modes, comma-separated: sequential, cbase, keys-pairwise, keys-hashed, bitmap-monitor, "
                    + "bitmap-indexed, rw-bitmap (default: all but keys-hashed).")
    List<SchedulerMode> modes;

    /** --clients, --keys, --read-fraction, --multi-put-fraction, --multi-put-keys, --value-size: as ./psmr load. */
    @Mixin
    WorkloadOptions workload;

    @Option(names = "--workers", paramLabel = "N",
            description = "Worker threads of the replica, " + OptionRanges.WORKERS + " (default: available processors).")
    Integer workers;

    @Option(names = "--batch", paramLabel = "B", defaultValue = "200", split = ",",
            description = "Most client commands per batch, " + OptionRanges.BATCH + "; cbase always uses 1. A comma-separated list sweeps "
                    + "it, e.g. 1,200 for batching off and on (default: ${DEFAULT-VALUE}).")
    List<Integer> batch;

    @Option(names = "--pillars", paramLabel = "NP", split = ",",
            description = "pbft only: COP pillars per PBFT replica, " + OptionRanges.PILLARS + "; a comma-separated list "
                    + "sweeps it, e.g. 1,2,4 (default: 2).")
    List<Integer> pillars;

    @Option(names = "--leader-rotation", paramLabel = "ROTATION", split = ",", converter = RotationConverter.class,
            description = "pbft only: rotating (COP: every replica leads instances in turn) or fixed (one primary); a "
                    + "comma-separated list sweeps it, e.g. rotating,fixed (default: rotating).")
    List<LeaderRotation> rotations;

    @Option(names = "--partitions", paramLabel = "P",
            description = "Key partitions, 2 to 1024 (64 with mlbft): key k is in partition k mod P, and the mix's MULTI_PUTs "
                    + "stay in one partition; mlbft orders each partition with its own PBFT instance (default: none, or 4 "
                    + "with mlbft; needed by --cross-partition above 0).")
    Integer partitions;

    @Option(names = "--cross-partition", paramLabel = "PCT", split = ",",
            description = "Percentage of operations that are MULTI_PUTs of --multi-put-keys keys over two partitions "
                    + "(MLBFT's cross-border requests), 0 to 100, exactly that many of every 100 per client; a "
                    + "comma-separated list sweeps it, e.g. 0,10,25,50,100 (default: 0).")
    List<Integer> crossPartition;

    @Option(names = "--window", paramLabel = "N", defaultValue = "4",
            description = "Batches the proxy keeps outstanding, 1 to 1024: above 1 the replica's graph holds several "
                    + "batches, so scheduling matters (default: ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--conflict", paramLabel = "PCT", defaultValue = "0",
            description = "Percentage of batches that also write one shared hot key, 0 to 100 (default: ${DEFAULT-VALUE}).")
    int conflict;

    @Option(names = {"--bitmap-bits", "-m"}, paramLabel = "M", defaultValue = "1024000",
            description = "Bitmap size m in bits (default: ${DEFAULT-VALUE}).")
    int bits;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "3s", converter = DurationConverter.class,
            description = "Length of each measured run, 10ms to 10m, e.g. 500ms or 3s (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--warmup", paramLabel = "TIME", defaultValue = "1s", converter = DurationConverter.class,
            description = "Length of the warm-up run of each mode, 10ms to 10m (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--runs", paramLabel = "R", defaultValue = "3",
            description = "Measured runs per mode, 1 to 100 (default: ${DEFAULT-VALUE}; use at least 3).")
    int runs;

    @Option(names = "--ordering", paramLabel = "ORDERING", defaultValue = "local",
            description = "Ordering layer: local, ringpaxos, pbft, ratis, mlbft, a comma-separated list of them (e.g. "
                    + "pbft,mlbft), both (local and ringpaxos) or all (local, ringpaxos, pbft and ratis) "
                    + "(default: ${DEFAULT-VALUE}).")
    String ordering;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "Clients' seed (default: ${DEFAULT-VALUE}).")
    long seed;

    /** --format text or csv (results.csv on stdout as well), --quiet. */
    @Mixin
    OutputOptions output;

    /** --out: the folder that receives bench-e2e-&lt;timestamp&gt;/. */
    @Mixin
    OutputOptions.OutDir out;

    @Override
    public Integer call() throws InterruptedException, IOException {
        E2eSettings settings = validate();
        OutputFormat format = output.format(OutputFormat.TEXT, OutputFormat.CSV);
        PrintWriter o = spec.commandLine().getOut();
        E2eBench bench = new E2eBench(settings);
        String timestamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = ResultsDir.unique(settings.outDir(), "bench-e2e-" + timestamp);
        if (format == OutputFormat.TEXT) {
            o.println("psmr bench e2e: " + E2eReport.machine(settings));
            long perMode = settings.warmup().toMillis() + settings.runs() * settings.duration().toMillis();
            int configs = (bench.totalRuns() - bench.failoverTrials()) / (1 + settings.runs());
            o.printf(Locale.ROOT, "%d modes x %d orderings%s x %d runs; about %d s%n", settings.modes().size(),
                    settings.orderings().size(), settings.sweep().given() ? " x sweep points (" + configs + " in all)" : "",
                    1 + settings.runs(),
                    (configs * (perMode + 300L * (1 + settings.runs()))
                            + bench.failoverTrials() * (settings.duration().toMillis() + 300L)) / 1000 + 2);
            if (bench.failoverTrials() > 0) {
                o.printf(Locale.ROOT, "then %d Ring Paxos failover trials of %d ms (%s workload; the coordinator is "
                        + "closed at half the run)%n", bench.failoverTrials(), settings.duration().toMillis(),
                        E2eBench.FAILOVER_MODE.cliName());
            }
            o.flush();
        }
        List<E2eResult> results;
        Optional<E2eFailoverResult> failover;
        if (output.quiet()) {
            results = bench.run(m -> { });
            failover = bench.runFailover(m -> { });
        } else {
            try (Progress bar = Progress.onStderr("bench e2e", bench.totalRuns(), "runs", false)) {
                results = bench.run(m -> bar.step());
                failover = bench.runFailover(m -> bar.step());
            }
        }
        E2eReport.write(dir, results, failover, settings, timestamp);
        Path chart = E2eCharts.write(dir, results, settings);
        List<Path> sweepCharts = E2eCharts.writeSweep(dir, results, settings);
        if (format == OutputFormat.CSV) {
            o.print(E2eReport.csv(results, settings));
        } else {
            o.println();
            E2eReport.table(results, settings, o);
            if (failover.isPresent()) {
                o.println();
                E2eReport.failoverTable(failover.get(), o);
            }
            o.println();
            o.println("wrote " + dir.resolve("results.csv") + ", "
                    + (failover.isPresent() ? dir.resolve(E2eReport.FAILOVER_CSV) + ", " : "")
                    + dir.resolve("summary.md") + ", " + chart
                    + sweepCharts.stream().map(p -> ", " + p).collect(Collectors.joining()));
        }
        o.flush();
        return 0;
    }

    E2eSettings validate() {
        output.format(OutputFormat.TEXT, OutputFormat.CSV);
        List<OrderingProtocol> orderings;
        try {
            orderings = E2eOrderings.select(ordering);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ordering: " + e.getMessage());
        }
        boolean swept = pillars != null || rotations != null || partitions != null || crossPartition != null
                || batch.size() > 1;
        List<SchedulerMode> m = new ArrayList<>();
        if (modes == null || modes.isEmpty()) {
            m.addAll(DEFAULT_MODES);
        } else {
            for (SchedulerMode mode : modes) {
                if (!m.contains(mode)) {
                    m.add(mode);
                }
            }
            // The references of the ratios, always measured in the same invocation (a sweep multiplies every mode
            // by its points, so there only the modes asked for run).
            if (!swept && !m.contains(SchedulerMode.CBASE)) {
                m.add(0, SchedulerMode.CBASE);
            }
            if (!swept && !m.contains(SchedulerMode.SEQUENTIAL)) {
                m.add(SchedulerMode.SEQUENTIAL);
            }
        }
        int w = workers != null ? workers : Runtime.getRuntime().availableProcessors();
        OptionRanges.workers(spec.commandLine(), w);
        OptionRanges.batch(spec.commandLine(), batch);
        distinct("--batch", batch);
        List<Integer> np = pillars == null ? List.of(E2eVariant.DEFAULT_PILLARS) : pillars;
        OptionRanges.pillars(spec.commandLine(), np);
        distinct("--pillars", np);
        List<LeaderRotation> rot = rotations == null ? List.of(E2eVariant.DEFAULT_ROTATION) : rotations;
        distinct("--leader-rotation", rot);
        if (!orderings.contains(OrderingProtocol.PBFT)) {
            require(pillars == null, "--pillars applies to pbft only; use --ordering pbft or all");
            require(rotations == null, "--leader-rotation applies to pbft only; use --ordering pbft or all");
        }
        List<Integer> cross = crossPartition == null ? List.of(0) : crossPartition;
        for (int c : cross) {
            require(c >= 0 && c <= 100, "--cross-partition must be a percentage from 0 to 100, got " + c);
        }
        distinct("--cross-partition", cross);
        // MLBFT partitions the keys: the other orderings then run the same workload, MULTI_PUTs within one partition.
        int parts = partitions != null ? partitions
                : orderings.contains(OrderingProtocol.MLBFT) ? io.psmr.kvstore.mlbft.EmbeddedMlbftCluster.DEFAULT_PARTITIONS : 0;
        require(partitions == null || (parts >= 2 && parts <= 1024), "--partitions must be from 2 to 1024, got " + parts);
        require(!orderings.contains(OrderingProtocol.MLBFT) || parts <= io.psmr.kvstore.mlbft.PartitionMap.MAX_PARTITIONS,
                "--partitions must be at most " + io.psmr.kvstore.mlbft.PartitionMap.MAX_PARTITIONS + " with mlbft, got " + parts);
        boolean anyCross = cross.stream().anyMatch(c -> c > 0);
        require(!anyCross || parts >= 2, "--cross-partition above 0 needs --partitions of at least 2");
        require(window >= 1 && window <= 1024, "--window must be from 1 to 1024, got " + window);
        require(conflict >= 0 && conflict <= 100, "--conflict must be a percentage from 0 to 100, got " + conflict);
        require(bits >= 1, "--bitmap-bits must be at least 1, got " + bits);
        runLength("--duration", duration);
        runLength("--warmup", warmup);
        require(runs >= 1 && runs <= 100, "--runs must be from 1 to 100, got " + runs);
        WorkloadSpec spec = workload.spec(duration, seed);
        require(!anyCross || spec.multiPutKeys() >= 2, "--cross-partition above 0 needs --multi-put-keys of at least 2, got "
                + spec.multiPutKeys());
        require((long) parts * spec.multiPutKeys() <= spec.keys(), "--partitions (" + parts + ") times --multi-put-keys ("
                + spec.multiPutKeys() + ") must be at most --keys (" + spec.keys() + ")");
        E2eSweep sweep = new E2eSweep(np, rot, batch, cross, parts, swept || orderings.contains(OrderingProtocol.MLBFT));
        return new E2eSettings(orderings, m, spec, w, batch.get(0), window, conflict, bits, runs, warmup,
                duration, seed, Runtime.getRuntime().availableProcessors(), out.path(), sweep);
    }

    private <T> void distinct(String flag, List<T> values) {
        for (int i = 0; i < values.size(); i++) {
            require(values.indexOf(values.get(i)) == i, flag + " lists " + String.valueOf(values.get(i))
                    .toLowerCase(Locale.ROOT) + " twice");
        }
    }

    private void runLength(String flag, Duration d) {
        require(d.toMillis() >= 10 && d.toMillis() <= 600_000, flag + " must be from 10ms to 10m, got "
                + DurationConverter.format(d));
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
