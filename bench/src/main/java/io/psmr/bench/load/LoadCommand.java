package io.psmr.bench.load;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.psmr.ordering.metrics.PrometheusEndpoint;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.metrics.ProxyMeters;
import java.util.concurrent.atomic.AtomicReference;

import io.psmr.bench.cli.OptionRanges;
import io.psmr.bench.cli.OrderingConverter;
import io.psmr.bench.cli.SchedulerModeConverter;
import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.OutputFormat;
import io.psmr.bench.cli.OutputOptions;
import io.psmr.bench.cli.PsmrMain;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.kvstore.pbft.EmbeddedPbftCluster;
import io.psmr.kvstore.ratis.RatisDurability;
import io.psmr.kvstore.StoreSizing;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr load}: drives an embedded replicated key-value store (N replicas over the local
 * sequencer, each with its own scheduler and Chronicle Map) with closed-loop clients through one
 * batching {@link io.psmr.proxy.ClientProxy}, and prints throughput, latency percentiles, the
 * acknowledged operations and every replica's digest. With {@code --cluster DIR} it drives a
 * cluster of separate processes instead ({@link ClusterLoad}).
 *
 * <p>Usable on its own, {@code new CommandLine(new LoadCommand()).execute(args)}, and as a
 * subcommand of {@code psmr}. Exit codes: 0 done and the digests agree; 1 the run failed (or too
 * few replicas were alive to compare digests); 2 bad usage, with a message naming the flag; 3 the
 * replicas' digests differ (safety); 4 the run stalled ({@code --stall-timeout}: liveness).
 */
@Command(name = "load",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Drive an embedded replicated key-value store, or with --cluster a cluster of processes, with closed-loop clients.",
            "Reports throughput, latency (p50, p99, p999), acknowledged operations and each replica's state digest.",
            "Exits 3 if the replicas' digests differ, 4 if no operation completes for --stall-timeout. Docs: docs/kvstore.md (Running ./psmr load), docs/client-proxy.md."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done, and the replicas' digests agree",
            "1:the run failed, or too few replicas were alive to compare digests",
            "2:usage error (bad or missing option)",
            "3:the replicas' digests differ (safety)",
            "4:stalled: no operation completed for --stall-timeout (liveness)"})
public final class LoadCommand implements Callable<Integer> {

    /** Largest replica count: the local sequencer's learner bound leaves room for other learners. */
    static final int MAX_REPLICAS = 32;
    static final int MAX_WINDOW = 1024;
    static final long MAX_CAPACITY_KEYS = 1_000_000_000L;

    /** How long the cluster's replicas may take to settle at one instance once the clients stop. */
    private static final Duration SETTLE = Duration.ofSeconds(120);


    @Spec
    CommandSpec spec;

    @Option(names = "--metrics-port", paramLabel = "P",
            description = "Serve the proxy's Prometheus metrics at GET /metrics on this port while the load runs (0: any free "
                    + "port, printed on stderr), on the cluster's host (127.0.0.1 for an embedded run). Docs: docs/metrics.md.")
    Integer metricsPort;

    @Option(names = "--cluster", paramLabel = "DIR",
            description = "Drive the process cluster in DIR (started with ./psmr cluster start, or DIR a copy of a cluster init "
                    + "directory) instead of an embedded one; replicas, mode and workers are the cluster's, and replies come over TCP.")
    Path cluster;

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "3",
            description = "Replicas, 1 to " + MAX_REPLICAS + "; with --ordering pbft 3f+1 of them (4, 7, 10, ...; "
                    + "default 4 there) (default: ${DEFAULT-VALUE}).")
    int replicas;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long clients issue operations, up to 24h, e.g. 500ms, 10s, 2m (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--ordering", paramLabel = "ORDERING", defaultValue = "local", converter = OrderingConverter.class,
            description = "local (psmr's in-process sequencer), ratis (Apache Ratis peers on loopback, psmr executing "
                    + "their log; docs/integration.md), pbft (PBFT with COP pillars in this process, Byzantine faults: "
                    + "clients accept f+1 matching replies; docs/pbft.md) or mlbft (the multi-leader baseline: one PBFT "
                    + "instance per key partition, never merged; docs/mlbft.md); ringpaxos runs as processes: use --cluster "
                    + "(default: ${DEFAULT-VALUE}).")
    OrderingProtocol ordering;

    @Option(names = "--ratis-durability", paramLabel = "D", defaultValue = "sync",
            description = "With --ordering ratis: when a peer counts a log entry stored. sync (fsync first: an acknowledged "
                    + "batch survives any crash), unsafe-flush (written to the page cache, fsync in the background: lost if a "
                    + "majority's machines lose power). See docs/integration.md (default: ${DEFAULT-VALUE}).")
    String ratisDurability;

    @Option(names = "--pillars", paramLabel = "N", defaultValue = "2",
            description = "With --ordering pbft: COP pillars per PBFT replica, " + OptionRanges.PILLARS + ", each agreeing on "
                    + "its own share of the instances in parallel (default: ${DEFAULT-VALUE}).")
    int pillars;

    @Option(names = "--leader-rotation", paramLabel = "ROTATION", defaultValue = "rotating",
            description = "With --ordering pbft: rotating (the leader of instance c in view v is (c / pillars + v) mod n, "
                    + "COP's) or fixed (classic PBFT: one primary per view) (default: ${DEFAULT-VALUE}).")
    String leaderRotation;

    @Option(names = "--partitions", paramLabel = "P", defaultValue = "4",
            description = "With --ordering mlbft: key partitions, 2 to 64, each ordered by its own PBFT instance and run by "
                    + "its own worker; key k<n> is in partition n mod P (default: ${DEFAULT-VALUE}, the thesis').")
    int partitions;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "bitmap-indexed", converter = SchedulerModeConverter.class,
            description = "Scheduler: sequential, cbase, keys-pairwise, keys-hashed, bitmap-monitor, bitmap-indexed or rw-bitmap "
                    + "(default: ${DEFAULT-VALUE}). cbase = exact keys compared pairwise, monitor graph, batches of 1.")
    SchedulerMode mode;

    @Option(names = "--workers", paramLabel = "N",
            description = "Worker threads per replica, " + OptionRanges.WORKERS + " (default: available processors).")
    Integer workers;

    @Option(names = "--batch", paramLabel = "N",
            description = "Most client commands per batch, " + OptionRanges.BATCH + " (default: 200; 1 for cbase).")
    Integer batch;

    @Option(names = "--conflict", paramLabel = "PCT", defaultValue = "0",
            description = "Percentage of batches, 0 to 100, that also write one shared hot key (the core paper's "
                    + "conflict rate; default: ${DEFAULT-VALUE}).")
    double conflict;

    @Option(names = "--history", paramLabel = "FILE",
            description = "Write every client operation to FILE as JSON lines (client, op, key, value, invoke_ns, "
                    + "complete_ns, status, output, detail), after a first READ of every key (the store's initial values).")
    Path history;

    /** --format text or json (one object with ops, throughput_ops, p50_us, p99_us, p999_us, digests and more); --quiet. */
    @Mixin
    OutputOptions output;

    /** --clients, --keys, --read-fraction, --multi-put-fraction, --multi-put-keys, --value-size. */
    @Mixin
    WorkloadOptions workload;

    @Option(names = "--max-keys", paramLabel = "N",
            description = "Replicated store capacity in entries, 1 to 10^9: every replica refuses, with status FULL, the same "
                    + "writes that could take the store past it (default: --keys + 1 + (--batch + 1) x --multi-put-keys, "
                    + "which this load can never fill).")
    Long maxKeys;

    @Option(names = "--max-bytes", paramLabel = "BYTES",
            description = "Replicated store capacity in key-plus-value bytes, 1 to max-keys x (largest key + largest value, "
                    + "1024 + 16384): writes that could exceed it are refused FULL (default: max-keys x (" + StoreSizing.KEY_BYTES
                    + " + --value-size), so that the entry count binds first).")
    Long maxBytes;

    @Option(names = "--window", paramLabel = "N", defaultValue = "1",
            description = "Batches the proxy keeps outstanding, 1 to " + MAX_WINDOW + " (default: ${DEFAULT-VALUE}, the paper's).")
    int window;

    @Option(names = "--linger", paramLabel = "TIME", defaultValue = "0ms", converter = DurationConverter.class,
            description = "How long the proxy may hold a command waiting for a full batch once the window has room "
                    + "(default: ${DEFAULT-VALUE}: send at once).")
    Duration linger;

    @Option(names = "--retry-timeout", paramLabel = "TIME", defaultValue = "5s", converter = DurationConverter.class,
            description = "How long the proxy waits for a batch's replies before proposing it again (default: ${DEFAULT-VALUE}).")
    Duration retryTimeout;

    @Option(names = "--stall-timeout", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
            description = "If no operation completes for this long (or the wait for outstanding operations after "
                    + "--duration lasts this long), say on stderr what cannot be heard from and exit 4 (default: ${DEFAULT-VALUE}).")
    Duration stallTimeout;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "42",
            description = "Seed of the clients' choices (default: ${DEFAULT-VALUE}).")
    long seed;

    /** The stall timeout, once {@link #validate} has checked it. */
    private Duration stall;

    /** The embedded replicas' ordering (with PBFT's configuration), once {@link #validate} has checked it. */
    private LoadTarget target;

    @Override
    public Integer call() throws Exception {
        LoadOptions options = validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = output.format(OutputFormat.TEXT, OutputFormat.JSON) == OutputFormat.JSON;
        RunControls controls = new RunControls(0, history != null, stall, StallProbe.NONE, notice -> {
            if (!output.quiet()) {
                err.println("psmr load: " + notice);
                err.flush();
            }
        });
        PrometheusEndpoint endpoint = null;
        if (metricsPort != null) {
            AtomicReference<ClientProxy> proxy = new AtomicReference<>();
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry.config().commonTags("node", "load-" + ProcessHandle.current().pid(), "role", "load");
            ProxyMeters.bind(registry, () -> {
                ClientProxy p = proxy.get();
                return p == null ? null : p.stats();
            });
            String host = cluster != null ? metricsHost(new ClusterDirectory(cluster).read()) : "127.0.0.1";
            try {
                endpoint = PrometheusEndpoint.start(host, metricsPort, registry);
            } catch (java.io.UncheckedIOException e) {
                err.println("psmr load: " + e.getMessage());
                err.flush();
                return 1;
            }
            controls = controls.withProxyStarted(proxy::set);
            if (!output.quiet()) {
                err.println("psmr load: metrics at http://" + host + ":" + endpoint.port() + PrometheusEndpoint.PATH);
                err.flush();
            }
        }
        try (PrometheusEndpoint served = endpoint) {
            return runAndReport(options, controls, json, out, err);
        }
    }

    /**
     * Where a load against {@code cluster} serves its metrics: the first address of this machine that the cluster
     * gives a proposer slot or a node (the machine's address on the cluster's network), else the loopback.
     */
    static String metricsHost(ClusterDescriptor cluster) {
        java.util.stream.Stream<String> hosts = java.util.stream.Stream.concat(
                cluster.proposers().stream().map(p -> p.host()), cluster.nodes().stream().map(n -> n.host()));
        return hosts.filter(h -> h != null && io.psmr.kvstore.cluster.ClusterLayout.isLocal(h)).findFirst().orElse("127.0.0.1");
    }

    private int runAndReport(LoadOptions options, RunControls controls, boolean json, PrintWriter out, PrintWriter err)
            throws Exception {
        LoadReport report;
        try {
            if (history != null) {
                try (JsonLinesHistory h = new JsonLinesHistory(history)) {
                    report = run(options, h, controls);
                }
            } else {
                report = run(options, HistorySink.NONE, controls);
            }
        } catch (LoadStalledException e) {
            if (e.report() != null) {
                print(e.report(), json, out);
            }
            err.println("psmr load: " + e.getMessage() + (history != null ? "; the history of what completed is in " + history : ""));
            err.flush();
            return PsmrMain.EXIT_STALLED;
        }
        print(report, json, out);
        int compared = report.digests().size();
        int remote = cluster == null ? 0 : ClusterLoad.remoteReplicas(new ClusterDirectory(cluster).read()).size();
        if (remote > 0) {
            // Their status files are on their machines: compare there (./psmr cluster status on each).
            err.println("psmr load: " + remote + " of " + options.replicas() + " replicas run on other machines; their digests"
                    + " are not compared from here (" + compared + " compared): run ./psmr cluster status on their machines");
            err.flush();
        }
        if (cluster != null && compared < Math.min(2, options.replicas() - remote)) {
            err.println("psmr load: only " + compared + " of " + options.replicas()
                    + " replicas are alive to report a digest; agreement not verified");
            err.flush();
            return 1;
        }
        if (!report.digestsAgree()) {
            err.println("psmr load: the replicas' digests differ: " + report.digests());
            err.flush();
            return PsmrMain.EXIT_UNSAFE;
        }
        return 0;
    }

    private static void print(LoadReport report, boolean json, PrintWriter out) {
        if (json) {
            out.println(report.toJson());
            out.flush();
        } else {
            report.printText(out);
        }
    }

    private LoadReport run(LoadOptions options, HistorySink h, RunControls controls) throws Exception {
        return cluster != null
                ? ClusterLoad.run(new ClusterDirectory(cluster), options, h, null, SETTLE, controls)
                : LoadRun.run(options, target, h, controls, null, null);
    }

    /** Checks every flag; a bad one is a usage error naming it. */
    LoadOptions validate() {
        if (cluster != null) {
            for (String fixed : new String[] {"--replicas", "--mode", "--workers", "--ordering", "--max-keys", "--max-bytes"}) {
                require(!spec.commandLine().getParseResult().hasMatchedOption(fixed),
                        fixed + " cannot be combined with --cluster: the cluster fixed it when it started (see cluster.json)");
            }
            ClusterDescriptor c;
            try {
                c = new ClusterDirectory(cluster).read();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--cluster: " + e.getMessage());
            }
            replicas = c.replicas().size();
            mode = c.settings().mode();
            workers = c.settings().workers();
        }
        require(replicas >= 1 && replicas <= MAX_REPLICAS, "--replicas must be from 1 to " + MAX_REPLICAS + ", got " + replicas);
        target = target();
        String notInProcess = EmbeddedOrdering.of(ordering).notInProcess();
        require(notInProcess == null || cluster != null, notInProcess);
        output.format(OutputFormat.TEXT, OutputFormat.JSON);
        if (metricsPort != null) {
            try {
                PrometheusEndpoint.checkPort(metricsPort);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
        }
        Duration d = duration;
        require(d.toMillis() >= 1 && d.compareTo(Duration.ofDays(1)) <= 0, "--duration must be from 1ms to 24h, got "
                + DurationConverter.format(d));
        SchedulerMode m = mode;
        require(!m.batchOfOne() || batch == null || batch == 1,
                "--mode cbase runs batches of one command, got --batch " + batch + "; keys-pairwise is the same scheduler with batches");
        int w = workers != null ? workers : Runtime.getRuntime().availableProcessors();
        OptionRanges.workers(spec.commandLine(), w);
        int b = m.batch(batch != null ? batch : 200);
        OptionRanges.batch(spec.commandLine(), b);
        require(conflict >= 0 && conflict <= 100, "--conflict must be a percentage from 0 to 100, got " + number(conflict));
        require(window >= 1 && window <= MAX_WINDOW, "--window must be from 1 to " + MAX_WINDOW + ", got " + window);
        Duration l = linger;
        require(l.compareTo(Duration.ofSeconds(10)) <= 0, "--linger must be at most 10s, got " + DurationConverter.format(l));
        Duration rt = retryTimeout;
        require(rt.toMillis() >= 1, "--retry-timeout must be at least 1ms, got " + DurationConverter.format(rt));
        stall = stallTimeout;
        require(stall.toMillis() >= 1 && stall.compareTo(Duration.ofHours(1)) <= 0, "--stall-timeout must be from 1ms to 1h, got "
                + DurationConverter.format(stall));
        WorkloadSpec spec = workload.spec(d, seed);
        return new LoadOptions(replicas, m, w, b, window, l, conflict, rt, spec, capacity(b, spec));
    }

    /** The embedded target: --ordering with the settings it takes; refuses another ordering's settings' flags. */
    private LoadTarget target() {
        EmbeddedOrdering runner = EmbeddedOrdering.of(ordering);
        for (EmbeddedOrdering other : EmbeddedOrdering.all()) {
            if (other == runner) {
                continue;
            }
            for (String flag : other.settingFlags()) {
                require(!spec.commandLine().getParseResult().hasMatchedOption(flag), flag + " is " + article(other.settingsName()) + " " + other.settingsName()
                        + " setting; " + (cluster != null ? "a --cluster load has none" : "--ordering " + ordering.cliName() + " has none")
                        + " (use --ordering " + other.protocol().cliName() + ")");
            }
        }
        return runner.target(new EmbeddedOrdering.Settings() {
            @Override
            public PbftConfig pbft() {
                return pbftConfig();
            }

            @Override
            public RatisDurability ratisDurability() {
                return LoadCommand.this.ratisDurability();
            }

            @Override
            public LoadTarget mlbft() {
                return mlbftTarget();
            }
        });
    }

    /** --replicas (3f+1, 4 unless given), --pillars and --leader-rotation, checked. */
    private PbftConfig pbftConfig() {
        if (!spec.commandLine().getParseResult().hasMatchedOption("--replicas")) {
            replicas = 4;
        }
        require(replicas >= 4 && (replicas - 1) % 3 == 0, "--ordering pbft needs 3f+1 replicas with f >= 1 (4, 7, 10, ...) "
                + "to tolerate f Byzantine ones, got --replicas " + replicas);
        OptionRanges.pillars(spec.commandLine(), pillars);
        LeaderRotation rotation = switch (leaderRotation) {
            case "rotating" -> LeaderRotation.ROTATING;
            case "fixed" -> LeaderRotation.FIXED;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "--leader-rotation must be rotating or fixed, got '" + leaderRotation + "'");
        };
        return EmbeddedPbftCluster.config((replicas - 1) / 3, pillars, rotation);
    }

    /** --replicas (3f+1, 4 unless given) and --partitions, checked; MLBFT takes no store capacity. */
    private LoadTarget mlbftTarget() {
        if (!spec.commandLine().getParseResult().hasMatchedOption("--replicas")) {
            replicas = 4;
        }
        require(replicas >= 4 && (replicas - 1) % 3 == 0, "--ordering mlbft needs 3f+1 replicas with f >= 1 (4, 7, 10, ...) "
                + "to tolerate f Byzantine ones, got --replicas " + replicas);
        require(partitions >= 2 && partitions <= io.psmr.kvstore.mlbft.PartitionMap.MAX_PARTITIONS,
                "--partitions must be from 2 to " + io.psmr.kvstore.mlbft.PartitionMap.MAX_PARTITIONS + ", got " + partitions);
        require(maxKeys == null && maxBytes == null, "--max-keys and --max-bytes do not apply to --ordering mlbft: its "
                + "partitions have no global order to refuse the same writes FULL in (docs/mlbft.md)");
        return MlbftLoadRun.target((replicas - 1) / 3, partitions, io.psmr.kvstore.KvLimits.defaults().maxBatchBytes());
    }

    /** --ratis-durability, checked. */
    private RatisDurability ratisDurability() {
        try {
            return RatisDurability.fromCliName(ratisDurability);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--ratis-durability: " + e.getMessage());
        }
    }

    /** The store capacity of --max-keys and --max-bytes, each defaulting as their descriptions say. */
    private StoreCapacity capacity(int batch, WorkloadSpec spec) {
        StoreCapacity workload = StoreSizing.workloadCapacity(batch, spec.keys(), spec.multiPutKeys(), spec.valueSize());
        long entries = maxKeys != null ? maxKeys : workload.maxEntries();
        require(entries >= 1 && entries <= MAX_CAPACITY_KEYS, "--max-keys must be from 1 to " + MAX_CAPACITY_KEYS + ", got " + entries);
        if (maxBytes == null) {
            return new StoreCapacity(entries, maxKeys == null ? workload.maxBytes() : StoreSizing.defaultMaxBytes(entries, spec.valueSize()));
        }
        long most = StoreSizing.maxUsefulBytes(entries);
        require(maxBytes >= 1 && maxBytes <= most, "--max-bytes must be from 1 to " + most
                + " (--max-keys " + entries + " times the largest key and value), got " + maxBytes);
        return new StoreCapacity(entries, maxBytes);
    }

    /** "an" before a name read with a vowel sound (MLBFT: "em"), else "a". */
    private static String article(String name) {
        return !name.isEmpty() && "AEIOUFHLMNRSX".indexOf(name.charAt(0)) >= 0 && name.length() > 1
                && Character.isUpperCase(name.charAt(1)) ? "an" : "a";
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }

    private static String number(double d) {
        return d == Math.rint(d) && !Double.isInfinite(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
