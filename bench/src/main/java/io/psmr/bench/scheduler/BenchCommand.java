package io.psmr.bench.scheduler;

import io.psmr.bench.e2e.E2eCommand;
import io.psmr.bench.micro.MicroCommand;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr bench}: the scheduler benchmark (the core paper's Fig. 4 and Fig. 5), see
 * {@link SchedulerBench}; {@code psmr bench micro} runs the JMH microbenchmarks; {@code psmr bench e2e}
 * the end-to-end benchmark ({@link io.psmr.bench.e2e.E2eCommand}).
 *
 * <p>Exit codes: 0 done, 1 failed (for example, the results folder cannot be written), 2 bad
 * usage, with a message naming the flag.
 */
@Command(name = "bench",
        mixinStandardHelpOptions = true,
        subcommands = {MicroCommand.class, E2eCommand.class},
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
            "Conflicts: the percentage of batches that also write one shared hot key.",
            "Modes: keys (exact keys compared pairwise, monitor graph: CBASE at batch 1), bitmap-monitor, "
                + "bitmap-indexed, rw-bitmap (indexed graph), sequential (no scheduler), keys-hashed (extra). "
                + "CBASE and sequential references are always added.",
            "",
            "--quick (default, about 2 minutes on 2 cores): workers 1,2,4; batch 1,200; conflicts 0,20; every mode; "
                + "500 ms runs. --full: workers 1,2,4,8,16; batch 1,100,200; conflicts 0,10,20; 1 s runs "
                + "(about 15 minutes). The axis flags narrow either.",
            ""})
public final class BenchCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { table, csv }

    static final List<BenchMode> DEFAULT_MODES = List.of(BenchMode.KEYS, BenchMode.BITMAP_MONITOR,
            BenchMode.BITMAP_INDEXED, BenchMode.RW_BITMAP, BenchMode.SEQUENTIAL);

    @Spec
    CommandSpec spec;

    @Option(names = "--quick", description = "The quick matrix (the default).")
    boolean quick;

    @Option(names = "--full", description = "The whole matrix of the paper's Fig. 4 and 5.")
    boolean full;

    @Option(names = "--modes", split = ",", paramLabel = "MODE",
            description = "Configurations: keys, bitmap-monitor, bitmap-indexed, rw-bitmap, sequential, keys-hashed.")
    List<String> modes;

    @Option(names = "--workers", split = ",", paramLabel = "N", description = "Worker counts, 1 to 256.")
    List<Integer> workers;

    @Option(names = "--batch", split = ",", paramLabel = "B", description = "Commands per batch, 1 to 4096.")
    List<Integer> batches;

    @Option(names = "--conflict", split = ",", paramLabel = "PCT",
            description = "Percentages of batches that write the hot key, 0 to 100.")
    List<Integer> conflicts;

    @Option(names = "--duration", paramLabel = "TIME",
            description = "Length of each measured run, e.g. 500ms or 2s (quick: 500ms, full: 1s).")
    String duration;

    @Option(names = "--warmup", paramLabel = "TIME",
            description = "Length of the warm-up run of each configuration (default: as --duration).")
    String warmup;

    @Option(names = "--runs", paramLabel = "R", defaultValue = "3",
            description = "Measured runs per configuration, 1 to 100 (default: ${DEFAULT-VALUE}; use at least 3).")
    int runs;

    @Option(names = {"--bits", "-m"}, paramLabel = "M", defaultValue = "1024000",
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

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "table, or csv to print results.csv to stdout as well (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "results",
            description = "Folder that receives bench-<timestamp>/ (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--no-progress", description = "No progress bar on stderr.")
    boolean noProgress;

    @Option(names = "--store", paramLabel = "STORE", defaultValue = "chronicle",
            description = "chronicle (the real store, default) or heap (a ConcurrentHashMap: shows the store's share).")
    String store;

    @Override
    public Integer call() throws InterruptedException, IOException {
        BenchSettings settings = validate();
        PrintWriter o = spec.commandLine().getOut();
        SchedulerBench bench = new SchedulerBench(settings);
        int total = bench.totalRuns();
        String timestamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = uniqueDir(settings.outDir(), "bench-" + timestamp);
        if (format == Format.table) {
            o.println("psmr bench: " + BenchReport.machine(settings));
            o.printf(Locale.ROOT, "%d configurations x %d runs; about %d s%n", bench.plan().size(), 1 + settings.runs(),
                    estimateSeconds(bench, settings));
            o.flush();
        }
        List<CellResult> results;
        if (noProgress) {
            results = bench.run(c -> { });
        } else {
            try (Progress bar = Progress.onStderr("bench", total, "runs", false)) {
                results = bench.run(c -> bar.step());
            }
        }
        BenchReport.write(dir, results, settings, timestamp);
        List<Path> charts = BenchCharts.write(dir, results, settings.cores());
        if (format == Format.csv) {
            o.print(BenchReport.csv(results));
        } else {
            o.println();
            BenchReport.table(results, settings, o);
            o.println();
            for (String t : BenchReport.targets(results)) {
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

    /** {@code parent/name}, or {@code parent/name-2}, {@code -3}, … if it exists. Shared with {@code bench e2e}. */
    public static Path uniqueDir(Path parent, String name) {
        Path dir = parent.resolve(name);
        for (int i = 2; dir.toFile().exists(); i++) {
            dir = parent.resolve(name + "-" + i);
        }
        return dir;
    }

    BenchSettings validate() {
        require(!(quick && full), "--quick and --full are mutually exclusive");
        List<BenchMode> m = new ArrayList<>();
        if (modes == null) {
            m.addAll(DEFAULT_MODES);
        } else {
            for (String name : modes) {
                BenchMode mode = BenchMode.byCliName(name.trim());
                require(mode != null, "--modes: unknown mode '" + name + "'; expected keys, bitmap-monitor, "
                        + "bitmap-indexed, rw-bitmap, sequential or keys-hashed");
                if (!m.contains(mode)) {
                    m.add(mode);
                }
            }
        }
        List<Integer> w = orDefault(workers, full ? List.of(1, 2, 4, 8, 16) : List.of(1, 2, 4));
        List<Integer> b = orDefault(batches, full ? List.of(1, 100, 200) : List.of(1, 200));
        List<Integer> c = orDefault(conflicts, full ? List.of(0, 10, 20) : List.of(0, 20));
        for (int v : w) {
            require(v >= 1 && v <= 256, "--workers must be from 1 to 256, got " + v);
        }
        for (int v : b) {
            require(v >= 1 && v <= 4096, "--batch must be from 1 to 4096, got " + v);
        }
        for (int v : c) {
            require(v >= 0 && v <= 100, "--conflict must be a percentage from 0 to 100, got " + v);
        }
        Duration d = parseDuration("--duration", duration, full ? Duration.ofSeconds(1) : Duration.ofMillis(500));
        Duration wu = parseDuration("--warmup", warmup, d);
        require(runs >= 1 && runs <= 100, "--runs must be from 1 to 100, got " + runs);
        require(bits >= 1, "--bits must be at least 1, got " + bits);
        require(maxPending >= 1 && maxPending <= 65_536, "--max-pending must be from 1 to 65536, got " + maxPending);
        require(store.equals("chronicle") || store.equals("heap"), "--store must be chronicle or heap, got '" + store + "'");
        return new BenchSettings(m, distinct(w), distinct(b), distinct(c), bits, maxPending, runs, wu, d, verify, seed,
                Runtime.getRuntime().availableProcessors(), out, store.equals("heap"));
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s)?");

    private Duration parseDuration(String flag, String text, Duration dflt) {
        return parseDuration(spec.commandLine(), flag, text, dflt);
    }

    /**
     * A run length such as {@code 500ms} or {@code 2s} (a bare number is seconds), from 10 ms to
     * 600 s, or {@code dflt} when {@code text} is null. Shared with {@code bench e2e}.
     *
     * @throws CommandLine.ParameterException naming {@code flag} if the text is not such a time
     */
    public static Duration parseDuration(CommandLine cl, String flag, String text, Duration dflt) {
        if (text == null) {
            return dflt;
        }
        Matcher mt = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!mt.matches()) {
            throw new CommandLine.ParameterException(cl, flag + " must be a time such as 500ms or 2s, got '" + text + "'");
        }
        double v = Double.parseDouble(mt.group(1));
        long millis = Math.round("ms".equals(mt.group(2)) ? v : v * 1000);
        if (millis < 10 || millis > 600_000) {
            throw new CommandLine.ParameterException(cl, flag + " must be from 10ms to 600s, got '" + text + "'");
        }
        return Duration.ofMillis(millis);
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
