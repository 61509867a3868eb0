package io.psmr.bench.simulate;

import io.psmr.bench.cli.OutputFormat;
import io.psmr.bench.cli.OutputOptions;
import io.psmr.simulation.BitmapSizing;
import io.psmr.simulation.CellResult;
import io.psmr.simulation.ConsoleProgress;
import io.psmr.simulation.InvalidConfigException;
import io.psmr.simulation.KeyDistribution;
import io.psmr.simulation.ProgressDisplay;
import io.psmr.simulation.Simulation;
import io.psmr.simulation.SimulationConfig;
import io.psmr.simulation.SweepSpec;
import io.psmr.simulation.output.ChartWriter;
import io.psmr.simulation.output.CsvWriter;
import io.psmr.simulation.output.JsonWriter;
import io.psmr.simulation.output.Report;
import io.psmr.simulation.output.TextWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code psmr simulate}: the false-positive simulator of issue 3. Reproduces the core paper's
 * Table I, runs single cells, sweeps and sizing searches, each beside the analytic model.
 *
 * <p>A subcommand of {@code psmr}; the engine and its writers are the simulation module's. Exit codes: 0 done, 1 failed (e.g. cannot write {@code --out}),
 * 2 bad usage, with a message naming the flag.
 */
@Command(name = "simulate",
        description = {
            "Simulate bitmap false positives (core paper, section VII-D) beside the analytic model.",
            "Modes: --table1, --sweep, --target-rate, or a single run (the default)."},
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true)
public final class SimulateCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(names = "--table1", description = "Reproduce Table I: m in {102400, 1024000}, g in {1, 5, 7}, B in {100, 200}.")
    private boolean table1;

    @Option(names = "--sweep", paramLabel = "AXIS=FROM..TO",
            description = "Sweep bits, batch or graph over a range, e.g. bits=102400..4096000; writes a chart.")
    private String sweep;

    @Option(names = "--sweep-points", paramLabel = "N", defaultValue = "10",
            description = "Values in a sweep (default: ${DEFAULT-VALUE}); bits are spaced geometrically.")
    private int sweepPoints;

    @Option(names = "--target-rate", paramLabel = "R",
            description = "Find the smallest m whose conflict rate is at most R (a fraction in (0, 1]).")
    private Double targetRate;

    @Option(names = {"--bitmap-bits", "-m"}, paramLabel = "M", defaultValue = "1024000",
            description = "Bitmap size m in bits (default: ${DEFAULT-VALUE}).")
    private int bitmapBits;

    @Option(names = {"--batch", "-b"}, paramLabel = "B", split = ",", defaultValue = "100",
            description = "Keys per batch (default: ${DEFAULT-VALUE}); a comma list in a sweep draws one line per value.")
    private List<Integer> batchSizes;

    @Option(names = {"--graph-size", "-g"}, paramLabel = "G", split = ",", defaultValue = "5",
            description = "Batches in the list an incoming batch is checked against (default: ${DEFAULT-VALUE}); "
                    + "a comma list in a sweep.")
    private List<Integer> graphSizes;

    @Option(names = {"--keys", "-k"}, paramLabel = "K", defaultValue = "1000000000",
            description = "Distinct keys K (default: ${DEFAULT-VALUE}).")
    private long keys;

    /** Most iterations per cell: 10^10 (about 150,000 queued chunks of 65,536). */
    static final long MAX_ITERATIONS = 10_000_000_000L;

    @Option(names = {"--iterations", "-n"}, paramLabel = "N", defaultValue = "1000000",
            description = "Incoming batches per cell (default: ${DEFAULT-VALUE}).")
    private long iterations;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
            description = "Global seed; results depend on it and the parameters only (default: ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--distribution", paramLabel = "uniform|zipf", defaultValue = "uniform",
            converter = DistributionConverter.class,
            description = "Key distribution (default: ${DEFAULT-VALUE}).")
    private KeyDistribution distribution;

    @Option(names = "--zipf-theta", paramLabel = "T", defaultValue = "0.99",
            description = "Zipf exponent, > 0 (default: ${DEFAULT-VALUE}).")
    private double zipfTheta;

    @Option(names = "--read-fraction", paramLabel = "F", defaultValue = "0",
            description = "Fraction of keys read, in [0, 1]; adds read/write bitmaps and exact read/write keys "
                    + "on the same stream (default: ${DEFAULT-VALUE}).")
    private double readFraction;

    @Option(names = "--partitions", paramLabel = "P", defaultValue = "0",
            description = "Also report partition-level conflicts, key mod P (default: none).")
    private int partitions;

    /** --format text, csv or json; --quiet: no progress bar and no timing on stderr. */
    @Mixin
    private OutputOptions output;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write CSV and PNG charts into DIR.")
    private Path out;

    @Option(names = "--threads", paramLabel = "N",
            description = "Worker threads (default: the number of cores); results do not depend on it.")
    private Integer threads;


    @Override
    public Integer call() {
        OutputFormat format = output.format(OutputFormat.TEXT, OutputFormat.CSV, OutputFormat.JSON);
        Report report = buildAndRun();
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.print(switch (format) {
            case TEXT -> TextWriter.write(report);
            case CSV -> CsvWriter.write(report);
            case JSON -> JsonWriter.write(report);
        });
        stdout.flush();
        try {
            writeFiles(report);
        } catch (IOException e) {
            spec.commandLine().getErr().println("psmr simulate: cannot write " + e.getMessage());
            return 1;
        }
        return 0;
    }

    private Report buildAndRun() {
        int modes = (table1 ? 1 : 0) + (sweep != null ? 1 : 0) + (targetRate != null ? 1 : 0);
        if (modes > 1) {
            throw usage("--table1, --sweep and --target-rate are exclusive; give one of them");
        }
        if (sweepPoints < 1) {
            throw usage("--sweep-points must be >= 1, got " + sweepPoints);
        }
        if (threads != null && threads < 1) {
            throw usage("--threads must be >= 1, got " + threads);
        }
        if (given("--zipf-theta") && distribution != KeyDistribution.ZIPF) {
            throw usage("--zipf-theta applies only with --distribution zipf");
        }
        if (iterations < 1 || iterations > MAX_ITERATIONS) {
            // Each cell is cut into chunks queued at once; bound them (10^10 iterations is hours anyway).
            throw usage("--iterations must be from 1 to " + MAX_ITERATIONS + ", got " + iterations);
        }
        long started = System.nanoTime();
        int workers = threads != null ? threads : Runtime.getRuntime().availableProcessors();
        Simulation sim = new Simulation(workers, seed, output.quiet() ? ProgressDisplay.NONE : new ConsoleProgress(System.err));
        Report report;
        if (table1) {
            for (String flag : List.of("--bitmap-bits", "--batch", "--graph-size", "--keys", "--distribution",
                    "--zipf-theta", "--read-fraction", "--partitions")) {
                if (given(flag)) {
                    throw usage(flag + " cannot be combined with --table1, which fixes the paper's cells");
                }
            }
            report = new Report(Report.Kind.TABLE1, seed, sim.run(Simulation.table1Cells(iterations)), null,
                    Double.NaN, null);
        } else if (sweep != null) {
            report = sweep(sim);
        } else if (targetRate != null) {
            report = sizing(sim);
        } else {
            SimulationConfig c = config(bitmapBits, single("--batch", batchSizes),
                    single("--graph-size", graphSizes));
            report = new Report(Report.Kind.SINGLE, seed, List.of(sim.run(c)), null, Double.NaN, null);
        }
        if (!output.quiet()) {
            spec.commandLine().getErr().printf(Locale.ROOT, "psmr simulate: %d cell(s) in %.2f s on %d thread(s), %d core(s)%n",
                    report.results().size(), (System.nanoTime() - started) / 1e9, workers,
                    Runtime.getRuntime().availableProcessors());
        }
        return report;
    }

    private Report sweep(Simulation sim) {
        SweepSpec s;
        try {
            s = SweepSpec.parse(sweep, sweepPoints);
        } catch (IllegalArgumentException e) {
            throw usage("--sweep: " + e.getMessage());
        }
        String sweptFlag = switch (s.axis()) {
            case BITS -> "--bitmap-bits";
            case BATCH -> "--batch";
            case GRAPH -> "--graph-size";
        };
        if (given(sweptFlag)) {
            throw usage(sweptFlag + " cannot be given when --sweep varies it");
        }
        List<SimulationConfig> cells = new ArrayList<>();
        for (int b : s.axis() == SweepSpec.Axis.BATCH ? List.of(1) : batchSizes) {
            for (int g : s.axis() == SweepSpec.Axis.GRAPH ? List.of(0) : graphSizes) {
                // Validate the base before applying sweep values, so errors name the user's flag.
                SimulationConfig base = config(bitmapBits, b, g);
                for (int v : s.values()) {
                    try {
                        cells.add(s.apply(base, v));
                    } catch (InvalidConfigException e) {
                        throw usage("--sweep: value " + v + ": " + e.getMessage());
                    }
                }
            }
        }
        return new Report(Report.Kind.SWEEP, seed, sim.run(cells), s, Double.NaN, null);
    }

    private Report sizing(Simulation sim) {
        if (given("--bitmap-bits")) {
            throw usage("--bitmap-bits cannot be combined with --target-rate, which computes it");
        }
        if (!(targetRate > 0 && targetRate <= 1)) {
            throw usage("--target-rate must be a fraction in (0, 1], got " + targetRate);
        }
        SimulationConfig base = config(1, single("--batch", batchSizes), single("--graph-size", graphSizes));
        BitmapSizing.Answer answer;
        try {
            answer = BitmapSizing.smallestBits(base, targetRate);
        } catch (IllegalArgumentException e) {
            throw usage("--target-rate: " + e.getMessage());
        }
        CellResult r = sim.run(base.withBitmapBits(answer.bitmapBits()));
        return new Report(Report.Kind.SIZING, seed, List.of(r), null, targetRate, answer);
    }

    private SimulationConfig config(int m, int b, int g) {
        try {
            return new SimulationConfig(m, b, g, keys, iterations, distribution, zipfTheta, readFraction, partitions);
        } catch (InvalidConfigException e) {
            throw usage(flagOf(e.parameter()) + " " + e.getMessage());
        }
    }

    private int single(String flag, List<Integer> values) {
        if (values.size() != 1) {
            throw usage(flag + " takes one value outside --sweep, got " + values);
        }
        return values.get(0);
    }

    private void writeFiles(Report report) throws IOException {
        Path dir = out;
        if (dir == null && report.kind() == Report.Kind.SWEEP) {
            dir = Path.of(".");
        }
        if (dir == null) {
            return;
        }
        Files.createDirectories(dir);
        Path png = dir.resolve(report.fileStem() + ".png");
        if (out != null) {
            Path csv = dir.resolve(report.fileStem() + ".csv");
            Files.writeString(csv, CsvWriter.write(report), StandardCharsets.UTF_8);
            note("wrote " + csv);
        }
        ChartWriter.write(report, png);
        note("wrote " + png);
    }

    private void note(String message) {
        if (!output.quiet()) {
            spec.commandLine().getErr().println("psmr simulate: " + message);
        }
    }

    private boolean given(String flag) {
        return spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption(flag);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static String flagOf(SimulationConfig.Parameter p) {
        return switch (p) {
            case BITMAP_BITS -> "--bitmap-bits";
            case BATCH_SIZE -> "--batch";
            case GRAPH_SIZE -> "--graph-size";
            case KEYS -> "--keys";
            case ITERATIONS -> "--iterations";
            case DISTRIBUTION -> "--distribution";
            case ZIPF_THETA -> "--zipf-theta";
            case READ_FRACTION -> "--read-fraction";
            case PARTITIONS -> "--partitions";
        };
    }

    /** Accepts {@code uniform} and {@code zipf} in any case. */
    static final class DistributionConverter implements CommandLine.ITypeConverter<KeyDistribution> {
        @Override
        public KeyDistribution convert(String value) {
            try {
                return KeyDistribution.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException("expected uniform or zipf, got '" + value + "'");
            }
        }
    }
}
