package io.psmr.bench.scheduler;

import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.OutputFormat;
import io.psmr.bench.cli.OptionRanges;
import io.psmr.bench.cli.OutputOptions;
import io.psmr.bench.cli.ResultsDir;
import io.psmr.bench.cli.BenchModeConverter;
import io.psmr.bench.cos.CosVariant;
import io.psmr.bench.scheduler.service.BenchStore;
import io.psmr.bench.scheduler.service.BusyWork;
import io.psmr.bench.scheduler.service.ServiceKind;
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
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr bench}: the scheduler benchmark (the core paper's Fig. 4 and Fig. 5), see
 * {@link SchedulerBench}. Its subcommands {@code micro} (JMH) and {@code e2e} (end to end) are
 * attached by {@link io.psmr.bench.cli.PsmrMain}, which holds the command tree.
 *
 * <p>Exit codes: 0 done, 1 failed (for example, the results folder cannot be written), 2 bad
 * usage, with a message naming the flag.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Scheduler benchmark (core paper, Fig. 4 and Fig. 5): CBASE-style scheduling beside batch-and-bitmap "
                + "scheduling, as fractions of the physical limit.",
            "",
            "Pre-built, pre-summarised batches of key-value commands (half READs, half UPDATEs, 16-byte keys and "
                + "values) are pushed at saturation by one delivery thread into a scheduler that runs the real key-value "
                + "service on Chronicle Map. Every configuration gets a warm-up run, then --runs measured runs, "
                + "interleaved. Prints a table; writes results.csv, summary.md and PNG charts to "
                + "<out>/bench-<timestamp>/.",
            "",
            "limit = throughput / (min(workers, cores) x sequential throughput of the same batches, same run).",
            "ceiling = throughput / partitioned throughput, per round (median over rounds): the same commands split "
                + "by key over as many threads, "
                + "each running its keys' commands in order with no scheduler (the most the service allows that many "
                + "threads; always added, like the cbase and sequential references).",
            "Conflicts: the percentage of batches that also write one shared hot key.",
            "Modes: cbase (batches of one, exact keys compared pairwise, monitor graph), keys-pairwise (the same in "
                + "batches), bitmap-monitor, bitmap-indexed, rw-bitmap (indexed graph), sequential (no scheduler), "
                + "keys-hashed (extra). The cbase and sequential references are always added.",
            "COS baselines (Escobar et al., \"Boosting concurrency in Parallel State Machine Replication\", Middleware '19): "
                + "cos-coarse (the dependency graph under one lock) and cos-lockfree (lock-free list), commands one at a "
                + "time like cbase; in the default matrices. The ratios include psmr (bitmap-indexed) \u00f7 best COS at 1 and 2 workers.",
            "",
            "--service map runs the same commands (COS baselines included) as one ConcurrentHashMap get or merge each; "
                + "--work-ns adds calibrated busy work per command; --summaries timed|both builds the summaries inside the timed loop.",
            "",
            "--quick (default, about 3 minutes): workers 1,2,4; batch 1,200; conflicts 0,20; every mode; "
                + "500 ms runs. --full: workers 1,2,4,8,16; batch 1,100,200; conflicts 0,10,20; 1 s runs "
                + "(about 18 minutes). The axis flags narrow either.",
            ""})
public final class BenchCommand implements Callable<Integer> {

    static final List<BenchMode> DEFAULT_MODES = List.of(BenchMode.of(SchedulerMode.CBASE),
            BenchMode.of(SchedulerMode.KEYS_PAIRWISE), BenchMode.of(SchedulerMode.BITMAP_MONITOR),
            BenchMode.of(SchedulerMode.BITMAP_INDEXED), BenchMode.of(SchedulerMode.RW_BITMAP),
            BenchMode.of(SchedulerMode.SEQUENTIAL),
            // The COS baselines (Escobar et al., Middleware '19): what users compare psmr with.
            BenchMode.of(CosVariant.COARSE), BenchMode.of(CosVariant.LOCK_FREE));

    @Spec
    CommandSpec spec;

    @Option(names = "--quick", description = "The quick matrix (the default).")
    boolean quick;

    @Option(names = "--full", description = "The whole matrix of the paper's Fig. 4 and 5.")
    boolean full;

    @Option(names = "--modes", split = ",", paramLabel = "MODE", converter = BenchModeConverter.class,
            description = "Scheduler modes, comma-separated: sequential, cbase, keys-pairwise, keys-hashed, bitmap-monitor, "
                    + "bitmap-indexed, rw-bitmap, and the COS baselines cos-coarse, cos-lockfree (default: all but keys-hashed).")
    List<BenchMode> modes;

    @Option(names = "--workers", split = ",", paramLabel = "N", description = "Worker counts, " + OptionRanges.WORKERS + ".")
    List<Integer> workers;

    @Option(names = "--batch", split = ",", paramLabel = "B", description = "Commands per batch, " + OptionRanges.BATCH + ".")
    List<Integer> batches;

    @Option(names = "--conflict", split = ",", paramLabel = "PCT",
            description = "Percentages of batches that write the hot key, 0 to 100.")
    List<Integer> conflicts;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Length of each measured run, 10ms to 10m, e.g. 500ms or 2s (quick: 500ms, full: 1s).")
    Duration duration;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Length of the warm-up run of each configuration, 10ms to 10m (default: as --duration).")
    Duration warmup;

    @Option(names = "--runs", paramLabel = "R", defaultValue = "3",
            description = "Measured runs per configuration, 1 to 100 (default: ${DEFAULT-VALUE}; use at least 3).")
    int runs;

    @Option(names = {"--bitmap-bits", "-m"}, paramLabel = "M", defaultValue = "1024000",
            description = "Bitmap size m in bits (default: ${DEFAULT-VALUE}).")
    int bits;

    @Option(names = "--max-pending", paramLabel = "N", defaultValue = "64",
            description = "Most batches in the dependency graph before delivery blocks (default: ${DEFAULT-VALUE}).")
    int maxPending;

    @Option(names = "--verify", description = "Let the scheduler verify each summary on the delivery thread "
            + "(a replica verifies before scheduling; off by default).")
    boolean verify;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "Workload seed (default: ${DEFAULT-VALUE}).")
    long seed;

    /** --format text or csv (results.csv on stdout as well), --quiet. */
    @Mixin
    OutputOptions output;

    /** --out: the folder that receives bench-&lt;timestamp&gt;/. */
    @Mixin
    OutputOptions.OutDir out;

    @Option(names = "--store", split = ",", paramLabel = "STORE",
            description = "Stores of the key-value service, comma-separated: chronicle (the real store, default), "
                    + "chronicle-map-api (the same map through its plain Map methods: the store call's reference) or "
                    + "heap (a ConcurrentHashMap: shows the store's share). The first runs the matrix; each further one "
                    + "runs it again as an A/B twin in the same rounds (configurations named MODE@STORE).")
    List<String> stores;

    @Option(names = "--service", paramLabel = "SERVICE", defaultValue = "kv",
            description = "kv (the key-value service on --store, default) or map (one ConcurrentHashMap get or merge "
                    + "per command, same keys and conflicts: shows the scheduler's own overhead).")
    String service;

    @Option(names = "--work-ns", paramLabel = "N", defaultValue = "0",
            description = "Extra busy work per command in ns, 0 to 1000000: a spin loop calibrated at start "
                    + "(default: ${DEFAULT-VALUE}).")
    long workNanos;

    @Option(names = "--summaries", paramLabel = "WHEN", defaultValue = "pre",
            description = "Where the parallel configurations' summaries are built: pre (before timing, default), "
                    + "timed (inside the timed loop, by a decode thread ahead of the delivery thread, as a replica's decode "
                    + "path builds or verifies them) or both (every parallel configuration twice). Sequential, COS and "
                    + "partitioned configurations build no summaries.")
    String summaries;

    @Override
    public Integer call() throws InterruptedException, IOException {
        BenchSettings settings = validate();
        OutputFormat format = output.format(OutputFormat.TEXT, OutputFormat.CSV);
        PrintWriter o = spec.commandLine().getOut();
        SchedulerBench bench = new SchedulerBench(settings);
        int total = bench.totalRuns();
        String timestamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = ResultsDir.unique(settings.outDir(), "bench-" + timestamp);
        if (format == OutputFormat.TEXT) {
            o.println("psmr bench: " + BenchReport.machine(settings));
            if (settings.workNanos() > 0) {
                o.println("busy work: " + BusyWork.of(settings.workNanos()).describe());
            }
            o.printf(Locale.ROOT, "%d configurations x %d runs; about %d s%n", bench.plan().size(), 1 + settings.runs(),
                    estimateSeconds(bench, settings));
            o.flush();
        }
        List<CellResult> results;
        if (output.quiet()) {
            results = bench.run(c -> { });
        } else {
            try (Progress bar = Progress.onStderr("bench", total, "runs", false)) {
                results = bench.run(c -> bar.step());
            }
        }
        BenchReport.write(dir, results, settings, timestamp);
        List<Path> charts = BenchCharts.write(dir, results, settings.cores());
        if (format == OutputFormat.CSV) {
            o.print(BenchReport.csv(results, io.psmr.bench.stats.JvmCollector.name(), BenchReport.storeColumn(settings)));
        } else {
            o.println();
            BenchReport.table(results, settings, o);
            o.println();
            for (String t : BenchReport.ratios(results)) {
                o.println(t);
            }
            o.println();
            o.println("wrote " + dir.resolve("results.csv") + ", " + dir.resolve("summary.md")
                    + (charts.isEmpty() ? "" : ", " + charts.stream().map(Path::toString).reduce((a, b) -> a + ", " + b).get()));
        }
        o.flush();
        return 0;
    }

    private static long estimateSeconds(SchedulerBench bench, BenchSettings s) {
        long perCell = s.warmup().toMillis() + s.runs() * s.duration().toMillis();
        return (bench.plan().size() * perCell) / 1000 + 5;
    }

    BenchSettings validate() {
        require(!(quick && full), "--quick and --full are mutually exclusive");
        List<BenchMode> m = modes == null || modes.isEmpty() ? DEFAULT_MODES : modes.stream().distinct().toList();
        List<Integer> w = orDefault(workers, full ? List.of(1, 2, 4, 8, 16) : List.of(1, 2, 4));
        List<Integer> b = orDefault(batches, full ? List.of(1, 100, 200) : List.of(1, 200));
        List<Integer> c = orDefault(conflicts, full ? List.of(0, 10, 20) : List.of(0, 20));
        OptionRanges.workers(spec.commandLine(), w);
        OptionRanges.batch(spec.commandLine(), b);
        for (int v : c) {
            require(v >= 0 && v <= 100, "--conflict must be a percentage from 0 to 100, got " + v);
        }
        Duration d = runLength("--duration", duration, full ? Duration.ofSeconds(1) : Duration.ofMillis(500));
        Duration wu = runLength("--warmup", warmup, d);
        require(runs >= 1 && runs <= 100, "--runs must be from 1 to 100, got " + runs);
        require(bits >= 1, "--bitmap-bits must be at least 1, got " + bits);
        require(maxPending >= 1 && maxPending <= 65_536, "--max-pending must be from 1 to 65536, got " + maxPending);
        List<BenchStore> st = new ArrayList<>();
        for (String name : stores == null || stores.isEmpty() ? List.of("chronicle") : stores) {
            BenchStore kind = BenchStore.parse(name);
            require(kind != null, "--store must be one or more of " + BenchStore.cliNames() + ", got '" + name + "'");
            require(!st.contains(kind), "--store names " + name + " twice");
            st.add(kind);
        }
        ServiceKind svc = ServiceKind.parse(service);
        require(svc != null, "--service must be kv or map, got '" + service + "'");
        require(svc == ServiceKind.KV || st.equals(List.of(BenchStore.CHRONICLE)), "--store " + String.join(",", stores == null ? List.of() : stores)
                + " applies to --service kv only; --service map has its own map");
        require(workNanos >= 0 && workNanos <= BusyWork.MAX_NANOS,
                "--work-ns must be from 0 to " + BusyWork.MAX_NANOS + ", got " + workNanos);
        SummaryTiming when = SummaryTiming.parse(summaries);
        require(when != null, "--summaries must be pre, timed or both, got '" + summaries + "'");
        return new BenchSettings(m, distinct(w), distinct(b), distinct(c), bits, maxPending, runs, wu, d, verify, seed,
                Runtime.getRuntime().availableProcessors(), out.path(), st, svc, workNanos, when);
    }

    /** {@code given}, or {@code dflt} when not given, from 10 ms to 10 minutes. */
    private Duration runLength(String flag, Duration given, Duration dflt) {
        Duration d = given != null ? given : dflt;
        require(d.toMillis() >= 10 && d.toMillis() <= 600_000, flag + " must be from 10ms to 10m, got "
                + DurationConverter.format(d));
        return d;
    }

    private static List<Integer> orDefault(List<Integer> given, List<Integer> dflt) {
        return given == null || given.isEmpty() ? dflt : given;
    }

    private static List<Integer> distinct(List<Integer> v) {
        return v.stream().distinct().toList();
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
