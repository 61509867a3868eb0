package io.psmr.bench.clusterbench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.psmr.bench.e2e.E2eResult;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.ordering.OrderingProtocol;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * The results of one {@code psmr bench cluster} invocation: one {@link ClusterBenchResult} per (ordering, clients),
 * as a table, {@value #CSV_FILE}, {@value #JSON_FILE} and {@value #SUMMARY_FILE}. Immutable.
 *
 * @param machine the machine line: cores, JVM, collector
 * @param settings what ran
 * @param results one per ordering and client count, in the settings' order
 */
public record ClusterBenchReport(String machine, ClusterBenchSettings settings, List<ClusterBenchResult> results) {

    /** The CSV file. */
    public static final String CSV_FILE = "results.csv";
    /** The JSON file. */
    public static final String JSON_FILE = "results.json";
    /** The Markdown summary. */
    public static final String SUMMARY_FILE = "summary.md";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Copies the list. */
    public ClusterBenchReport {
        results = List.copyOf(results);
    }

    /** Summarises the samples of the processes and the reference runs. */
    static ClusterBenchReport of(ClusterBenchSettings s, ClusterBench.Measured m,
                                 Map<OrderingProtocol, Map<Integer, E2eResult>> reference) {
        List<ClusterBenchResult> out = new ArrayList<>();
        for (OrderingProtocol o : s.orderings()) {
            double idle = median(m.idle().getOrDefault(o, List.of()).stream().mapToDouble(ClusterBench.Idle::cores).toArray());
            double idleNode = median(m.idle().getOrDefault(o, List.of()).stream()
                    .mapToDouble(ClusterBench.Idle::nodePercent).toArray());
            for (int c : s.clients()) {
                List<ClusterBench.Sample> runs = m.samples().getOrDefault(o, Map.of()).getOrDefault(c, List.of());
                double[] ops = values(runs, ClusterBench.Sample::opsPerSecond);
                double[] cpu = values(runs, r -> ClusterBench.micros(r.clusterCpuNanos(), r.operations()));
                Map<String, Double> byRole = new TreeMap<>();
                for (NodeRole role : NodeRole.values()) {
                    double[] v = runs.stream().filter(r -> r.cpuByRole().containsKey(role))
                            .mapToDouble(r -> ClusterBench.micros(r.cpuByRole().get(role), r.operations())).toArray();
                    if (v.length > 0) {
                        byRole.put(role.cliName(), median(v));
                    }
                }
                E2eResult ref = reference.getOrDefault(o, Map.of()).get(c);
                out.add(new ClusterBenchResult(o.cliName(), c, runs.size(), median(ops), min(ops), max(ops),
                        median(values(runs, r -> r.p50Micros())), median(values(runs, r -> r.p99Micros())),
                        median(values(runs, r -> r.p999Micros())), median(cpu), min(cpu), max(cpu), byRole,
                        median(values(runs, r -> ClusterBench.micros(r.loadCpuNanos(), r.operations()))), idle,
                        idleNode,
                        ref == null ? Double.NaN : ref.throughputOps(), ref == null ? Double.NaN : ref.minOps(),
                        ref == null ? Double.NaN : ref.maxOps(), ref == null ? Double.NaN : ref.p50Micros()));
            }
        }
        return new ClusterBenchReport(machine(s), s, out);
    }

    private static double[] values(List<ClusterBench.Sample> runs, ToDoubleFunction<ClusterBench.Sample> f) {
        return runs.stream().mapToDouble(f).filter(Double::isFinite).toArray();
    }

    static double median(double[] v) {
        if (v.length == 0) {
            return Double.NaN;
        }
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElse(Double.NaN);
    }

    private static double max(double[] v) {
        return Arrays.stream(v).max().orElse(Double.NaN);
    }

    /** The machine line: cores, JVM version, collector. */
    static String machine(ClusterBenchSettings s) {
        String gc = java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(java.lang.management.GarbageCollectorMXBean::getName).reduce((a, b) -> a + ", " + b).orElse("?");
        return s.cores() + " cores, Java " + System.getProperty("java.version") + ", load generator collector " + gc;
    }

    /** The table: one row per ordering and client count. */
    public void table(PrintWriter o) {
        o.printf(Locale.ROOT, "%-10s %7s %22s %8s %8s %8s %11s %-22s %9s %10s %22s %7s%n", "ordering", "clients",
                "ops/s (min-max)", "p50 ms", "p99 ms", "p999 ms", "cpu us/op", "by role us/op", "load us/op",
                "idle %/node", "one JVM ops/s", "ratio");
        for (ClusterBenchResult r : results) {
            o.printf(Locale.ROOT, "%-10s %7d %22s %8s %8s %8s %11s %-22s %9s %10s %22s %7s%n", r.ordering(),
                    r.clients(),
                    range(r.opsPerSecond(), r.minOps(), r.maxOps()), millis(r.p50Micros()), millis(r.p99Micros()),
                    millis(r.p999Micros()), number(r.clusterCpuMicros()), roles(r), number(r.loadCpuMicros()),
                    fixed(r.idleNodePercent(), 2), range(r.referenceOps(), r.referenceMinOps(), r.referenceMaxOps()),
                    fixed(r.processesOverOneJvm(), 2));
        }
        o.flush();
    }

    /** One CSV row per result, with a header. */
    public String csv() {
        StringBuilder b = new StringBuilder("ordering,clients,runs,ops_per_s,min_ops_per_s,max_ops_per_s,p50_us,p99_us,"
                + "p999_us,cluster_cpu_us_per_op,min_cluster_cpu_us_per_op,max_cluster_cpu_us_per_op,"
                + "acceptor_cpu_us_per_op,replica_cpu_us_per_op,load_cpu_us_per_op,idle_cores,idle_node_percent,"
                + "one_jvm_ops_per_s,"
                + "one_jvm_min_ops_per_s,one_jvm_max_ops_per_s,one_jvm_p50_us,processes_over_one_jvm\n");
        for (ClusterBenchResult r : results) {
            b.append(String.join(",", r.ordering(), Integer.toString(r.clients()), Integer.toString(r.runs()),
                    csv(r.opsPerSecond()), csv(r.minOps()), csv(r.maxOps()), csv(r.p50Micros()), csv(r.p99Micros()),
                    csv(r.p999Micros()), csv(r.clusterCpuMicros()), csv(r.minClusterCpu()), csv(r.maxClusterCpu()),
                    csv(r.cpuByRoleMicros().getOrDefault("acceptor", Double.NaN)),
                    csv(r.cpuByRoleMicros().getOrDefault("replica", Double.NaN)), csv(r.loadCpuMicros()),
                    csv(r.idleCores()), csv(r.idleNodePercent()), csv(r.referenceOps()), csv(r.referenceMinOps()),
                    csv(r.referenceMaxOps()),
                    csv(r.referenceP50Micros()), csv(r.processesOverOneJvm()))).append('\n');
        }
        return b.toString();
    }

    /** The report as indented JSON: the machine, the settings (durations in milliseconds), the results; NaN as null. */
    public String toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("machine", machine);
        json.put("cores", settings.cores());
        json.put("orderings", settings.orderings().stream().map(OrderingProtocol::cliName).toList());
        json.put("clients", settings.clients());
        json.put("window", settings.window());
        json.put("runs", settings.runs());
        json.put("warmupMillis", settings.warmup().toMillis());
        json.put("clusterWarmupMillis", settings.clusterWarmup().toMillis());
        json.put("durationMillis", settings.duration().toMillis());
        json.put("idleMillis", settings.idle().toMillis());
        json.put("reference", settings.reference());
        json.put("links", settings.insecure() ? "plain TCP" : "mutual TLS");
        json.put("seed", settings.seed());
        json.put("results", results);
        try {
            return JSON.writeValueAsString(json).replace("\"NaN\"", "null"); // Jackson quotes NaN by default
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON: " + e.getMessage(), e);
        }
    }

    /** The Markdown summary: machine, settings, method, table. */
    String summary() {
        StringWriter w = new StringWriter();
        PrintWriter o = new PrintWriter(w);
        o.println("# psmr bench cluster");
        o.println();
        o.println("Machine: " + machine + ".");
        o.println();
        o.printf(Locale.ROOT, "Each ordering runs as a process cluster, as `cluster start` starts it, %1$d time(s), "
                + "interleaved with the others; each fresh cluster is first warmed by uncounted loads until its "
                + "nodes' JIT compilers use under 2 %% of a core each (at most %3$d s); per run and client count a "
                + "%2$d s warm-up and a %4$d s measured window on one proxy (window %5$d), then, %6$d s after "
                + "the last load, the idle CPU of the warm cluster over %7$d s. CPU is user plus system "
                + "time of the processes over the measured window, per answered operation: the cluster's nodes by "
                + "role, and the load generator (the JVM of the clients and the proxy) apart. Links: %9$s.%8$s%n",
                settings.runs(), settings.warmup().toSeconds(), settings.clusterWarmup().toSeconds(),
                settings.duration().toSeconds(), settings.window(), ClusterBench.IDLE_SETTLE.toSeconds(),
                settings.idle().toSeconds(), settings.reference()
                        ? " The one-JVM reference runs the same orderings through `bench e2e`'s code path with the same "
                        + "clients, runs, warm-up and duration." : "",
                settings.insecure() ? "plain TCP (--insecure)" : "mutual TLS");
        o.println();
        o.println("| ordering | clients | ops/s (min-max) | p50 ms | p99 ms | p999 ms | cluster CPU µs/op | by role µs/op "
                + "| load µs/op | idle cores (cluster) | idle % of a core per node | one JVM ops/s (min-max) "
                + "| processes / one JVM |");
        o.println("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|");
        for (ClusterBenchResult r : results) {
            o.printf(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", r.ordering(),
                    r.clients(), range(r.opsPerSecond(), r.minOps(), r.maxOps()), millis(r.p50Micros()),
                    millis(r.p99Micros()), millis(r.p999Micros()), range(r.clusterCpuMicros(), r.minClusterCpu(),
                            r.maxClusterCpu()), roles(r), number(r.loadCpuMicros()), fixed(r.idleCores(), 3),
                    fixed(r.idleNodePercent(), 2), range(r.referenceOps(), r.referenceMinOps(), r.referenceMaxOps()),
                    fixed(r.processesOverOneJvm(), 2));
        }
        o.flush();
        return w.toString();
    }

    /** Writes the CSV, JSON and summary into {@code dir}; returns them. */
    public List<Path> write(Path dir) {
        try {
            Files.createDirectories(dir);
            Path csv = Files.writeString(dir.resolve(CSV_FILE), csv());
            Path json = Files.writeString(dir.resolve(JSON_FILE), toJson() + "\n");
            Path md = Files.writeString(dir.resolve(SUMMARY_FILE), summary());
            return List.of(csv, json, md);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report into " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String roles(ClusterBenchResult r) {
        List<String> parts = new ArrayList<>();
        r.cpuByRoleMicros().forEach((role, v) -> parts.add(role + " " + number(v)));
        return parts.isEmpty() ? "-" : String.join(", ", parts);
    }

    private static String range(double median, double min, double max) {
        if (!Double.isFinite(median)) {
            return "-";
        }
        return number(median) + " (" + number(min) + "-" + number(max) + ")";
    }

    private static String number(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%,.0f", v) : "-";
    }

    private static String millis(double micros) {
        return Double.isFinite(micros) ? String.format(Locale.ROOT, "%.1f", micros / 1000) : "-";
    }

    private static String fixed(double v, int decimals) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%." + decimals + "f", v) : "-";
    }

    private static String csv(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.3f", v) : "";
    }
}
