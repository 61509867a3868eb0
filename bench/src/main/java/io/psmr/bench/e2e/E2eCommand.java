package io.psmr.bench.e2e;

import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.OutputFormat;
import io.psmr.bench.cli.OutputOptions;
import io.psmr.bench.cli.ResultsDir;
import io.psmr.bench.cli.SchedulerModeConverter;
import io.psmr.bench.load.WorkloadOptions;
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
                + "its own executing replica, the proxy accepting f+1 = 2 matching replies), all (every ordering e2e embeds: "
                + "local, ringpaxos and pbft, interleaved).",
            "",
            "Failover (ringpaxos, both and all): after the measured runs, --runs trials of the bitmap-indexed workload over a "
                + "fresh Ring Paxos cluster close the coordinator's acceptor at half the run and time, from just before "
                + "the close, the first new decision (the first instance delivered beyond the last one ordered before the close, "
                + "once the dead coordinator's in-flight decisions are past), and the next coordinator's election; median, min and max in ms, next to the tick and suspect timeout that dominate "
                + "them; written to failover.csv.",
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
            description = "Worker threads of the replica, 1 to 256 (default: available processors).")
    Integer workers;

    @Option(names = "--batch", paramLabel = "B", defaultValue = "200",
            description = "Most client commands per batch, 1 to 4095; cbase always uses 1 (default: ${DEFAULT-VALUE}).")
    int batch;

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
            description = "Ordering layer: local, ringpaxos, pbft, both (local and ringpaxos) or all (local, ringpaxos and pbft) "
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
            int configs = settings.orderings().size() * settings.modes().size();
            o.printf(Locale.ROOT, "%d modes x %d orderings x %d runs; about %d s%n", settings.modes().size(),
                    settings.orderings().size(), 1 + settings.runs(),
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
                    + dir.resolve("summary.md") + ", " + chart);
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
        List<SchedulerMode> m = new ArrayList<>();
        if (modes == null || modes.isEmpty()) {
            m.addAll(DEFAULT_MODES);
        } else {
            for (SchedulerMode mode : modes) {
                if (!m.contains(mode)) {
                    m.add(mode);
                }
            }
            // The references of the ratios, always measured in the same invocation.
            if (!m.contains(SchedulerMode.CBASE)) {
                m.add(0, SchedulerMode.CBASE);
            }
            if (!m.contains(SchedulerMode.SEQUENTIAL)) {
                m.add(SchedulerMode.SEQUENTIAL);
            }
        }
        int w = workers != null ? workers : Runtime.getRuntime().availableProcessors();
        require(w >= 1 && w <= 256, "--workers must be from 1 to 256, got " + w);
        require(batch >= 1 && batch <= 4095, "--batch must be from 1 to 4095, got " + batch);
        require(window >= 1 && window <= 1024, "--window must be from 1 to 1024, got " + window);
        require(conflict >= 0 && conflict <= 100, "--conflict must be a percentage from 0 to 100, got " + conflict);
        require(bits >= 1, "--bitmap-bits must be at least 1, got " + bits);
        runLength("--duration", duration);
        runLength("--warmup", warmup);
        require(runs >= 1 && runs <= 100, "--runs must be from 1 to 100, got " + runs);
        return new E2eSettings(orderings, m, workload.spec(duration, seed), w, batch, window, conflict, bits, runs, warmup,
                duration, seed, Runtime.getRuntime().availableProcessors(), out.path());
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
