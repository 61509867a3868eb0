package io.psmr.bench.micro;

import io.psmr.kvstore.ChronicleJvmFlags;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.OutputOptions;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr bench micro}: the JMH microbenchmarks of the scheduler ({@link GraphBenchmark},
 * {@link DeliveryBenchmark}, {@link BitmapIntersectBenchmark}, {@link SummaryBuildBenchmark}) and of the store
 * ({@link StoreCallBenchmark}), run from the psmr jar, which carries JMH's generated
 * {@code META-INF/BenchmarkList}. Prints ns per batch and per command (and, with {@code --gc}, bytes
 * allocated per operation) and writes {@code micro.csv} beside the scheduler benchmark's results.
 */
@Command(name = "micro",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "JMH microbenchmarks: graph insert+take+remove per graph and mode at depth 1, 8, 64; the delivery "
                + "thread's insert plus forget at 64 pending (Delivery); bitmap "
                + "intersection per representation at m = 102,400 and 1,024,000; summary building per mode. "
                + "Batches of 200 single-key commands. One Chronicle Map store call per path (StoreCall). "
                + "Reports ns per batch and per command. About 5 minutes with the defaults; --include narrows.",
            ""})
public final class MicroCommand implements Callable<Integer> {

    /** Header of micro.csv. */
    public static final String CSV_HEADER = "benchmark,params,ns_per_op,error_ns,ns_per_command,bytes_per_op";

    @Spec
    CommandSpec spec;

    @Option(names = "--include", paramLabel = "REGEX", defaultValue = "io\\.psmr\\.bench\\.micro\\..*",
            description = "Benchmarks to run, a JMH regular expression (default: all of psmr's).")
    String include;

    @Option(names = "--forks", paramLabel = "N", defaultValue = "1", description = "JMH forks, 0 to 10 (default: ${DEFAULT-VALUE}).")
    int forks;

    @Option(names = "--warmup-iterations", paramLabel = "N", defaultValue = "2",
            description = "Warm-up iterations, 0 to 100 (default: ${DEFAULT-VALUE}).")
    int warmupIterations;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "3",
            description = "Measured iterations, 1 to 100 (default: ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--time", paramLabel = "TIME", defaultValue = "1s", converter = DurationConverter.class,
            description = "Length of each iteration, 10ms to 1m (default: ${DEFAULT-VALUE}).")
    Duration time;

    @Option(names = "--gc", description = "Add JMH's GC profiler and report bytes allocated per operation "
            + "(gc.alloc.rate.norm; empty in micro.csv without it).")
    boolean gc;

    /** --out: the folder that receives micro-&lt;timestamp&gt;/micro.csv. */
    @Mixin
    OutputOptions.OutDir out;

    @Override
    public Integer call() throws RunnerException, IOException {
        require(forks >= 0 && forks <= 10, "--forks must be from 0 to 10, got " + forks);
        require(warmupIterations >= 0 && warmupIterations <= 100, "--warmup-iterations must be from 0 to 100, got " + warmupIterations);
        require(iterations >= 1 && iterations <= 100, "--iterations must be from 1 to 100, got " + iterations);
        require(time.toMillis() >= 10 && time.toMillis() <= 60_000, "--time must be from 10ms to 1m, got " + DurationConverter.format(time));
        long timeMillis = time.toMillis();
        try {
            Pattern.compile(include);
        } catch (PatternSyntaxException e) {
            require(false, "--include is not a regular expression: " + e.getDescription());
        }
        ChainedOptionsBuilder opts = new OptionsBuilder()
                .include(include)
                .forks(forks)
                .warmupIterations(warmupIterations)
                .warmupTime(TimeValue.milliseconds(timeMillis))
                .measurementIterations(iterations)
                .measurementTime(TimeValue.milliseconds(timeMillis))
                .verbosity(VerboseMode.NORMAL)
                // The benchmarks do not open Chronicle Map, but the kvstore classes they load may.
                .jvmArgsAppend(ChronicleJvmFlags.CHRONICLE.toArray(String[]::new));
        if (gc) {
            opts.addProfiler(GCProfiler.class);
        }
        Collection<RunResult> results = new Runner(opts.build()).run();
        List<String> rows = rows(results);
        PrintWriter o = spec.commandLine().getOut();
        o.println();
        o.printf(Locale.ROOT, "%-42s %-58s %14s %14s %10s%n", "benchmark", "params", "ns/batch (op)", "ns/command", "B/op");
        StringBuilder csv = new StringBuilder(CSV_HEADER).append('\n');
        for (String row : rows) {
            String[] f = row.split(",", -1);
            o.printf(Locale.ROOT, "%-42s %-58s %14s %14s %10s%n", f[0], f[1], f[2] + " +- " + f[3], f[4], f[5]);
            csv.append(row).append('\n');
        }
        Path dir = out.path().resolve("micro-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("micro.csv"), csv, StandardCharsets.UTF_8);
        o.println();
        o.println("wrote " + dir.resolve("micro.csv"));
        o.flush();
        return 0;
    }

    /** One CSV row per result: ns per operation and, where a batch size is a parameter, per command. */
    static List<String> rows(Collection<RunResult> results) {
        List<String> rows = new ArrayList<>();
        for (RunResult r : results) {
            String name = r.getParams().getBenchmark().replace("io.psmr.bench.micro.", "");
            Map<String, String> params = new TreeMap<>();
            for (String k : r.getParams().getParamsKeys()) {
                params.put(k, r.getParams().getParam(k));
            }
            double ns = r.getPrimaryResult().getScore();
            double err = r.getPrimaryResult().getScoreError();
            String perCommand = "";
            if (params.containsKey("batch") && !name.startsWith("BitmapIntersect")) {
                perCommand = String.format(Locale.ROOT, "%.1f", ns / Integer.parseInt(params.get("batch")));
            }
            StringBuilder p = new StringBuilder();
            params.forEach((k, v) -> p.append(p.length() == 0 ? "" : " ").append(k).append('=').append(v));
            String bytesPerOp = "";
            for (Map.Entry<String, Result> e : r.getSecondaryResults().entrySet()) {
                if (e.getKey().endsWith("gc.alloc.rate.norm")) {
                    bytesPerOp = String.format(Locale.ROOT, "%.1f", e.getValue().getScore());
                }
            }
            rows.add(String.format(Locale.ROOT, "%s,%s,%.1f,%.1f,%s,%s", name, p, ns, Double.isNaN(err) ? 0 : err, perCommand,
                    bytesPerOp));
        }
        return rows;
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
