package io.psmr.bench.clusterbench;

import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.OutputFormat;
import io.psmr.bench.cli.OutputOptions;
import io.psmr.bench.cli.ResultsDir;
import io.psmr.ordering.OrderingProtocol;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr bench cluster}: throughput, latency and CPU per operation of process clusters, see {@link ClusterBench}.
 *
 * <p>Exit codes: 0 done, 1 a cluster did not start, a load failed or the results cannot be written (named on stderr),
 * 2 bad usage, with a message naming the flag.
 */
@Command(name = "cluster",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "What an operation costs on a process cluster: for each ordering a fresh cluster of processes, as ./psmr "
                + "cluster start starts it (Ring Paxos: 3 acceptors and 2 replicas; Ratis: 3 peers with fsync; PBFT: 4 "
                + "replicas of 2 pillars), driven by ./psmr load's clients at each client count, in interleaved runs.",
            "",
            "Reports per ordering and client count: ops/s (median, min and max over the runs), p50, p99 and p999 "
                + "latency, and CPU per operation: user plus system time of every cluster process (in all and per "
                + "role) and, apart, of the load generator, over the measured window, divided by the operations "
                + "answered in it; the idle CPU of each cluster, warm, with no client connected, per node; and, as the "
                + "reference, the same orderings in one JVM through bench e2e's code path. Prints a table; writes "
                + "results.csv, results.json, summary.md, throughput.png and cpu-per-op.png to "
                + "<out>/bench-cluster-<timestamp>/, with each cluster's logs under clusters/.",
            "",
            "Default: ringpaxos, ratis and pbft at 16 and 64 clients, window 1, 3 runs of a 5 s warm-up and a 10 s "
                + "window, each fresh cluster warmed until its JIT compilers are quiet (up to 2 minutes), 5 s idle: "
                + "about 25 minutes on 2 cores.",
            ""})
public final class ClusterBenchCommand implements Callable<Integer> {

    /** The most clients. */
    static final int MAX_CLIENTS = 10_000;

    @Spec
    CommandSpec spec;

    @Option(names = "--ordering", paramLabel = "ORDERING", defaultValue = "all",
            description = "ringpaxos, ratis, pbft, a comma-separated list of them, or all (default: ${DEFAULT-VALUE}).")
    String ordering;

    @Option(names = "--clients", paramLabel = "N", split = ",", defaultValue = "16,64",
            description = "Closed-loop clients, a comma-separated sweep, each 1 to " + MAX_CLIENTS
                    + " (default: ${DEFAULT-VALUE}).")
    List<Integer> clients;

    @Option(names = "--window", paramLabel = "N", defaultValue = "1",
            description = "Commands each client keeps in flight, 1 to 1024 (default: ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--runs", paramLabel = "N", defaultValue = "3",
            description = "Measured runs per ordering and client count, 1 to 100, interleaved (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--warmup", paramLabel = "TIME", defaultValue = "5s", converter = DurationConverter.class,
            description = "Load before each measured window, 1s to 10m (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--cluster-warmup", paramLabel = "TIME", defaultValue = "2m", converter = DurationConverter.class,
            description = "Longest warm-up of each fresh cluster, 0s to 10m: uncounted loads of the first client count"
                    + " until the nodes' JIT compilers use under 2 %% of a core each over one of them (default:"
                    + " ${DEFAULT-VALUE}).")
    Duration clusterWarmup;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
            description = "Each measured window, 1s to 10m (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--idle", paramLabel = "TIME", defaultValue = "5s", converter = DurationConverter.class,
            description = "How long each cluster's idle CPU is read, 5 s after its last load, 1s to 10m (default: "
                    + "${DEFAULT-VALUE}).")
    Duration idle;

    @Option(names = "--reference", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Also run the orderings in one JVM (bench e2e's code path) as the reference; --no-reference "
                    + "skips it (default: ${DEFAULT-VALUE}).")
    boolean reference;

    @Option(names = "--insecure",
            description = "Run the clusters over plain TCP, as cluster start --insecure does; by default they run mutual TLS, "
                    + "as cluster start's do.")
    boolean insecure;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42", description = "Clients' seed (default: ${DEFAULT-VALUE}).")
    long seed;

    /** --format text, csv or json, --quiet. */
    @Mixin
    OutputOptions output;

    /** --out: the folder that receives bench-cluster-&lt;timestamp&gt;/. */
    @Mixin
    OutputOptions.OutDir out;

    @Override
    public Integer call() throws InterruptedException, IOException {
        ClusterBenchSettings settings = validate();
        OutputFormat format = output.format(OutputFormat.TEXT, OutputFormat.CSV, OutputFormat.JSON);
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String name = spec.qualifiedName();
        String timestamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path dir = ResultsDir.unique(settings.outDir(), "bench-cluster-" + timestamp);
        Path clusters = Files.createDirectories(dir.resolve("clusters"));
        if (format == OutputFormat.TEXT) {
            o.printf(Locale.ROOT, "%s: %d cores; %s at %s clients, %d runs; about %d s%n", name, settings.cores(),
                    settings.orderings().stream().map(OrderingProtocol::cliName).collect(Collectors.joining(", ")),
                    settings.clients().stream().map(String::valueOf).collect(Collectors.joining(", ")), settings.runs(),
                    settings.estimateSeconds());
            o.flush();
        }
        ClusterBenchReport report;
        try {
            report = new ClusterBench(settings, clusters).run(line -> {
                if (!output.quiet()) {
                    err.println(name + ": " + line);
                    err.flush();
                }
            });
        } catch (IllegalStateException e) {
            err.println(name + ": " + e.getMessage() + " (logs under " + clusters + ")");
            err.flush();
            return io.psmr.bench.cli.PsmrMain.EXIT_FAILURE;
        }
        List<Path> files = new ArrayList<>(report.write(dir));
        files.addAll(ClusterBenchCharts.write(dir, report));
        switch (format) {
            case CSV -> o.print(report.csv());
            case JSON -> o.println(report.toJson());
            default -> {
                o.println(report.machine());
                report.table(o);
                o.println();
                o.println("wrote " + files.stream().map(Path::toString).collect(Collectors.joining(", ")));
            }
        }
        o.flush();
        return 0;
    }

    /** Checks every flag; a bad one is a usage error naming it. */
    ClusterBenchSettings validate() {
        output.format(OutputFormat.TEXT, OutputFormat.CSV, OutputFormat.JSON);
        List<OrderingProtocol> orderings = new ArrayList<>();
        if (ordering.equals("all")) {
            orderings.addAll(ClusterBenchSettings.SUPPORTED);
        } else {
            for (String one : ordering.split(",", -1)) {
                OrderingProtocol p;
                try {
                    p = OrderingProtocol.fromCliName(one.trim());
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(spec.commandLine(), "--ordering: " + e.getMessage());
                }
                require(ClusterBenchSettings.SUPPORTED.contains(p), "--ordering: " + p.cliName()
                        + " does not run as a process cluster; expected ringpaxos, ratis, pbft, a comma-separated list "
                        + "of them, or all");
                require(!orderings.contains(p), "--ordering lists " + p.cliName() + " twice");
                orderings.add(p);
            }
        }
        for (int c : clients) {
            require(c >= 1 && c <= MAX_CLIENTS, "--clients must be from 1 to " + MAX_CLIENTS + " each, got " + c);
        }
        require(clients.stream().distinct().count() == clients.size(), "--clients lists a count twice");
        require(window >= 1 && window <= 1024, "--window must be from 1 to 1024, got " + window);
        require(runs >= 1 && runs <= 100, "--runs must be from 1 to 100, got " + runs);
        require(warmup.toMillis() >= 1000 && warmup.toSeconds() <= 600, "--warmup must be from 1s to 10m, got "
                + DurationConverter.format(warmup));
        require(!clusterWarmup.isNegative() && clusterWarmup.toSeconds() <= 600, "--cluster-warmup must be from 0s to 10m, "
                + "got " + DurationConverter.format(clusterWarmup));
        require(duration.toMillis() >= 1000 && duration.toSeconds() <= 600, "--duration must be from 1s to 10m, got "
                + DurationConverter.format(duration));
        require(idle.toMillis() >= 1000 && idle.toSeconds() <= 600, "--idle must be from 1s to 10m, got "
                + DurationConverter.format(idle));
        return new ClusterBenchSettings(orderings, clients, window, runs, warmup, clusterWarmup, duration, idle, reference, insecure, seed,
                out.path(), Runtime.getRuntime().availableProcessors());
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
