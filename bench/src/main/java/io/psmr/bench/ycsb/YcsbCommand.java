package io.psmr.bench.ycsb;

import io.psmr.bench.cli.OptionRanges;
import io.psmr.bench.cli.OrderingConverter;
import io.psmr.bench.cli.PsmrMain;
import io.psmr.bench.cli.SchedulerModeConverter;
import io.psmr.bench.load.ClusterLoad;
import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.ratis.EmbeddedRatisCluster;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.kvstore.StoreConfig;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.scheduler.SchedulerMode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr ycsb}: YCSB's standard core workloads (A, B, C, D, F) through YCSB's own client code
 * ({@link YcsbPhase}) and the {@link PsmrYcsbDb} binding, against an embedded replicated store or a
 * cluster of processes. Runs YCSB's load phase (its output on stderr, each line prefixed
 * {@code [load] }), then its run phase, whose output, in YCSB's own text format, goes to stdout.
 *
 * <p>Exit codes: 0 done; 1 the load phase did not insert every record, or the run failed; 2 bad
 * usage, with a message naming the flag; 3 the embedded replicas' digests differ.
 */
@Command(name = "ycsb",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Run a YCSB core workload (a, b, c, d or f; e scans, which psmr's unordered store refuses) through YCSB's own client.",
            "Loads recordcount records, then runs operationcount operations on threadcount threads; prints YCSB's output.",
            "Docs: docs/ycsb.md."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done",
            "1:the load phase did not insert every record, or the run failed",
            "2:usage error (bad or missing option)",
            "3:the embedded replicas' digests differ (safety)"})
public final class YcsbCommand implements Callable<Integer> {

    static final int MAX_REPLICAS = 32;
    static final int MAX_THREADS = 1024;
    /** Key bytes the embedded store is sized for per record: "usertable/user" and up to 20 digits. */
    static final int KEY_BYTES = 40;
    /** How long the embedded replicas may take to apply everything, or Ratis to elect a leader. */
    static final long QUIESCE_SECONDS = 120;

    @Spec
    CommandSpec spec;

    @Option(names = "--workload", paramLabel = "W", required = true,
            description = "YCSB core workload: a (50/50 read/update), b (95/5), c (read only), d (read latest, 5%% inserts), "
                    + "f (50%% read-modify-write).")
    String workload;

    /** Where the replicas are: exactly one of the two. */
    @ArgGroup(exclusive = true, multiplicity = "1")
    Where where;

    static final class Where {
        @Option(names = "--cluster", paramLabel = "DIR", required = true,
                description = "The process cluster in DIR (started with ./psmr cluster start; Ring Paxos, Ratis or PBFT).")
        Path cluster;

        @Option(names = "--embedded", required = true,
                description = "Replicas in this process (--replicas, --ordering, --mode, --workers).")
        boolean embedded;
    }

    @Option(names = "--replicas", paramLabel = "N", defaultValue = "3",
            description = "Embedded replicas, 1 to " + MAX_REPLICAS + " (default: ${DEFAULT-VALUE}).")
    int replicas;

    @Option(names = "--ordering", paramLabel = "ORDERING", defaultValue = "local", converter = OrderingConverter.class,
            description = "Embedded ordering: local (in-process sequencer) or ratis (Apache Ratis peers on loopback) "
                    + "(default: ${DEFAULT-VALUE}).")
    OrderingProtocol ordering;

    @Option(names = "--mode", paramLabel = "MODE", defaultValue = "bitmap-indexed", converter = SchedulerModeConverter.class,
            description = "Embedded scheduler: sequential, cbase, keys-pairwise, keys-hashed, bitmap-monitor, bitmap-indexed "
                    + "or rw-bitmap (default: ${DEFAULT-VALUE}).")
    SchedulerMode mode;

    @Option(names = "--workers", paramLabel = "N",
            description = "Embedded worker threads per replica, " + OptionRanges.WORKERS + " (default: available processors).")
    Integer workers;

    @Option(names = "--batch", paramLabel = "N",
            description = "Most client commands per batch, " + OptionRanges.BATCH + " (default: 200; 1 for cbase).")
    Integer batch;

    @Option(names = "--window", paramLabel = "N", defaultValue = "1",
            description = "Batches the proxy keeps outstanding, 1 to 1024 (default: ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "-P", paramLabel = "FILE",
            description = "A YCSB properties file, read over the workload's properties and under -p.")
    Path propertyFile;

    @Option(names = "-p", paramLabel = "NAME=VALUE",
            description = "A YCSB property, e.g. -p recordcount=10000 -p operationcount=50000 -p threadcount=8; "
                    + "wins over the workload's and -P's.")
    Map<String, String> overrides = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        Properties props = properties();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (where.cluster != null) {
            for (String fixed : new String[] {"--replicas", "--mode", "--workers", "--ordering"}) {
                require(!spec.commandLine().getParseResult().hasMatchedOption(fixed),
                        fixed + " cannot be combined with --cluster: the cluster fixed it when it started (see cluster.json)");
            }
            ClusterDirectory dir = new ClusterDirectory(where.cluster);
            ClusterDescriptor c;
            try {
                c = dir.read();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--cluster: " + e.getMessage());
            }
            int b = batch(c.settings().mode());
            return ClusterLoad.withProxy(dir, rc -> proxyConfig(rc, b), (proxy, probe) -> phases(props, proxy, out, err));
        }
        int w = workers != null ? workers : Runtime.getRuntime().availableProcessors();
        OptionRanges.workers(spec.commandLine(), w);
        require(replicas >= 1 && replicas <= MAX_REPLICAS, "--replicas must be from 1 to " + MAX_REPLICAS + ", got " + replicas);
        require(ordering == OrderingProtocol.LOCAL || ordering == OrderingProtocol.RATIS,
                "--ordering must be local or ratis with --embedded; run ringpaxos or pbft with ./psmr cluster start and --cluster DIR");
        int b = batch(mode);
        ReplicaConfig rc = replicaConfig(props, w);
        ProxyConfig pc = proxyConfig(rc, b);
        if (ordering == OrderingProtocol.RATIS) {
            Path logs = Files.createTempDirectory("psmr-ycsb-ratis-");
            try (EmbeddedRatisCluster cluster = EmbeddedRatisCluster.start(replicas, rc, logs, 10_000)) {
                if (cluster.awaitLeader(QUIESCE_SECONDS, TimeUnit.SECONDS) == 0) {
                    throw new IllegalStateException("no Ratis leader was elected within " + QUIESCE_SECONDS + " s");
                }
                try (ClientProxy proxy = ClientProxy.start(pc, cluster.broadcast(), cluster.router())) {
                    return phases(props, proxy, out, err);
                }
            } finally {
                deleteRecursively(logs);
            }
        }
        try (EmbeddedCluster cluster = EmbeddedCluster.start(replicas, rc);
             ClientProxy proxy = ClientProxy.start(pc, cluster.broadcast(), cluster.router())) {
            int code = phases(props, proxy, out, err);
            if (code == 0 && !cluster.awaitQuiescent(QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the replicas did not apply every ordered batch within " + QUIESCE_SECONDS + " s");
            }
            if (code == 0 && cluster.digests().stream().distinct().count() > 1) {
                err.println("psmr ycsb: the replicas' digests differ: " + cluster.digests());
                err.flush();
                return PsmrMain.EXIT_UNSAFE;
            }
            return code;
        }
    }

    /** YCSB's load phase, then its run phase, each thread with its own {@link PsmrYcsbDb} on {@code proxy}. */
    private static int phases(Properties props, ClientProxy proxy, PrintWriter out, PrintWriter err) throws Exception {
        YcsbPhase.Result load = YcsbPhase.run(props, false, () -> new PsmrYcsbDb(proxy));
        for (String line : load.output().split("\n")) {
            err.println("[load] " + line);
        }
        err.flush();
        long records = Long.parseLong(props.getProperty("insertcount", props.getProperty("recordcount")));
        if (load.operations() < records) {
            err.println("psmr ycsb: the load phase inserted " + load.operations() + " of " + records
                    + " records (see the [INSERT-FAILED] lines above); not running the workload");
            err.flush();
            return 1;
        }
        YcsbPhase.Result run = YcsbPhase.run(props, true, () -> new PsmrYcsbDb(proxy));
        out.print(run.output());
        out.flush();
        return 0;
    }

    /** The workload's properties, then -P's, then -p's; the counts checked. */
    Properties properties() {
        YcsbWorkload w;
        try {
            w = YcsbWorkload.fromName(workload);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--workload: " + e.getMessage());
        }
        Properties p = w.properties();
        if (propertyFile != null) {
            try (Reader r = Files.newBufferedReader(propertyFile)) {
                p.load(r);
            } catch (IOException | IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "-P " + propertyFile + ": cannot read it: " + e.getMessage());
            }
        }
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            require(!e.getKey().isBlank(), "-p needs NAME=VALUE with a name, got '=" + e.getValue() + "'");
            p.setProperty(e.getKey().trim(), e.getValue().trim());
        }
        for (String unsupported : new String[] {"db", "maxexecutiontime", "exporter", "exportfile", "status"}) {
            require(!p.containsKey(unsupported), "-p " + unsupported + " is not supported by psmr ycsb (the binding is psmr's, "
                    + "phases run to operationcount, and YCSB's text output goes to stdout)");
        }
        positive(p, "recordcount", 0, Integer.MAX_VALUE);
        positive(p, "operationcount", 1, Integer.MAX_VALUE);
        positive(p, "threadcount", 1, MAX_THREADS);
        positive(p, "fieldcount", 1, 1_000_000);
        positive(p, "fieldlength", 0, Integer.MAX_VALUE);
        p.putIfAbsent("threadcount", "1");
        return p;
    }

    private void positive(Properties p, String name, long min, long max) {
        String v = p.getProperty(name);
        if (v == null) {
            return;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "-p " + name + " must be a whole number, got '" + v + "'");
        }
        require(n >= min && n <= max, "-p " + name + " must be from " + min + " to " + max + ", got " + n);
    }

    private int batch(SchedulerMode m) {
        int b = m.batch(batch != null ? batch : 200);
        require(!m.batchOfOne() || batch == null || batch == 1, "--mode cbase runs batches of one command, got --batch " + batch);
        OptionRanges.batch(spec.commandLine(), b);
        require(window >= 1 && window <= 1024, "--window must be from 1 to 1024, got " + window);
        return b;
    }

    private ProxyConfig proxyConfig(ReplicaConfig rc, int batch) {
        return ProxyConfig.builder().proxyId(1).detection(rc.detection()).limits(rc.limits())
                .maxBatchCommands(batch).window(window).build();
    }

    /**
     * The embedded replicas: a store for every record the workload can write (recordcount plus
     * operationcount, since D inserts), each with a key of up to {@value #KEY_BYTES} bytes and a
     * value of fieldcount fields of fieldlength bytes.
     */
    private ReplicaConfig replicaConfig(Properties p, int workers) {
        long entries = Long.parseLong(p.getProperty("recordcount", "1000")) + Long.parseLong(p.getProperty("operationcount", "1000")) + 16;
        int fields = Integer.parseInt(p.getProperty("fieldcount", "10"));
        long fieldBytes = Long.parseLong(p.getProperty("fieldlength", "100"));
        String prefix = p.getProperty("fieldnameprefix", "field");
        long value = 4 + fields * (8L + prefix.length() + Integer.toString(fields).length() + fieldBytes);
        long perEntry = KEY_BYTES + Math.min(value, KvLimits.defaults().maxValueBytes());
        StoreCapacity capacity = new StoreCapacity(entries, Math.multiplyExact(entries, perEntry));
        return ReplicaConfig.builder().mode(mode).workers(workers).limits(KvLimits.defaults()).capacity(capacity)
                .store(StoreConfig.defaults().forCapacity(capacity, KEY_BYTES)).build();
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort: a temporary directory left behind is not worth failing a finished run.
        }
    }
}
