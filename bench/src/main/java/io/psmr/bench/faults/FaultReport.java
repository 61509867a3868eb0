package io.psmr.bench.faults;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.psmr.bench.stats.JvmCollector;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The report of {@code psmr bench faults}: the machine and settings, and one {@link ScenarioResult} per scenario.
 * Written as {@value #JSON_FILE} (for tools), {@value #SUMMARY_FILE} and a text table. Immutable.
 *
 * @param cores               this machine's available processors
 * @param java                the JVM's version
 * @param replicas            PBFT replicas
 * @param faultsTolerated     f, and the replicas each scenario faults
 * @param pillars             COP pillars per replica
 * @param leaderRotation      rotating or fixed
 * @param clients             closed-loop clients
 * @param faultFreeMillis     the fault-free window, from the start of the load
 * @param warmupMillis        the start of the fault-free window: the warm-up skipped
 * @param faultyMillis        the faulty window, from the onset
 * @param seed                the seed of the targets and the clients
 * @param recoveredFraction   the fraction of fault-free throughput that counts as recovered
 * @param smoothingMillis     the window over which recovery is judged
 * @param scenarios           each scenario's results, in the order run
 */
public record FaultReport(int cores, String java, int replicas, int faultsTolerated, int pillars, String leaderRotation,
                          int clients, long faultFreeMillis, long warmupMillis, long faultyMillis, long seed,
                          double recoveredFraction, long smoothingMillis, List<ScenarioResult> scenarios) {

    /** Whether the scenarios ran under more than one leader selection: rows then name their selection. */
    @com.fasterxml.jackson.annotation.JsonIgnore
    public boolean comparesSelections() {
        return scenarios.stream().map(ScenarioResult::leaderSelection).distinct().count() > 1;
    }

    private boolean compares() {
        return comparesSelections();
    }

    /** The JSON file's name. */
    public static final String JSON_FILE = "faults.json";
    /** The Markdown summary's name. */
    public static final String SUMMARY_FILE = "summary.md";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Copies the list. */
    public FaultReport {
        scenarios = List.copyOf(scenarios);
    }

    /** The report of {@code results}, run with {@code s}. */
    static FaultReport of(FaultSettings s, List<ScenarioResult> results) {
        return new FaultReport(s.cores(), System.getProperty("java.version"), s.replicas(), s.faultsTolerated(),
                s.pillars(), s.rotation().name().toLowerCase(Locale.ROOT), s.clients(), s.faultFree().toMillis(),
                s.warmup().toMillis(), s.faulty().toMillis(), s.seed(), FaultMetrics.RECOVERED,
                FaultMetrics.SMOOTHING_BUCKETS * CompletionTimeline.BUCKET_MILLIS, results);
    }

    /** The scenarios that failed. */
    public List<ScenarioResult> failed() {
        return scenarios.stream().filter(r -> !r.ok()).toList();
    }

    /** The machine and settings, one line. */
    public String machine() {
        return String.format(Locale.ROOT, "%d cores, Java %s, %s; PBFT %d replicas (f = %d) x %d pillars, %s leaders, "
                        + "%d closed-loop clients; fault-free %s (the first %s skipped), faulty %s; seed %d",
                cores, java, JvmCollector.describe(), replicas, faultsTolerated, pillars, leaderRotation, clients,
                seconds(faultFreeMillis), seconds(warmupMillis), seconds(faultyMillis), seed);
    }

    /** The report as indented JSON. */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON: " + e.getMessage(), e);
        }
    }

    /** The table, one row per scenario, then each failed scenario's error. */
    public void table(PrintWriter o) {
        o.printf(Locale.ROOT, "%-28s %-22s %10s %10s %8s %9s %9s %13s %17s %17s%n", "fault", "targets", "free op/s",
                "faulty op/s", "fraction", "first 0.8", "holds 0.8", "below 0.8 f/F", "free p50/p99 ms",
                "faulty p50/p99 ms");
        for (ScenarioResult r : scenarios) {
            o.printf(Locale.ROOT, "%-28s %-22s %10s %10s %8s %9s %9s %13s %17s %17s%n", r.label(compares()),
                    String.join(",", r.targets()), rate(r.faultFreeOps()), rate(r.faultyOps()), ratio(r.fraction()),
                    firstBack(r), recovery(r), below(r), latency(r.faultFreeP50Ms(), r.faultFreeP99Ms()),
                    latency(r.faultyP50Ms(), r.faultyP99Ms()));
        }
        for (ScenarioResult r : failed()) {
            o.println(r.label(compares()) + " FAILED: " + r.error());
        }
        o.flush();
    }

    /** Writes {@value #JSON_FILE} and {@value #SUMMARY_FILE} into {@code dir}; returns them. */
    public List<Path> write(Path dir) {
        Path json = dir.resolve(JSON_FILE);
        Path summary = dir.resolve(SUMMARY_FILE);
        try {
            Files.createDirectories(dir);
            Files.writeString(json, toJson() + "\n");
            Files.writeString(summary, summary());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report into " + dir + ": " + e.getMessage(), e);
        }
        return List.of(json, summary);
    }

    /** The Markdown summary: settings, the method in brief, the table. */
    String summary() {
        StringWriter w = new StringWriter();
        PrintWriter o = new PrintWriter(w);
        o.println("# psmr bench faults");
        o.println();
        o.println("Machine and settings: " + machine() + ".");
        o.println();
        o.printf(Locale.ROOT, "Each fault runs on a new PBFT process cluster under closed-loop load. Throughput is "
                + "completed operations per second; fault-free is its own run's window from %s to %s; faulty is the "
                + "%s from the onset (rounded up to %d ms). Over %d ms windows: `first %.1f` is the time from the onset "
                + "until the first window at %.1f x fault-free or above; `holds %.1f` until the window from which every "
                + "later one of the faulty window holds it; `below %.1f` is the share of windows below it in the "
                + "fault-free window and in the faulty one (the machine's own dips, against the fault's). Latency is "
                + "from submit to reply, as the client sees it.%n", seconds(warmupMillis), seconds(faultFreeMillis),
                seconds(faultyMillis), CompletionTimeline.BUCKET_MILLIS, smoothingMillis, recoveredFraction,
                recoveredFraction, recoveredFraction, recoveredFraction);
        o.println();
        o.println("| fault | what | fault-free op/s | faulty op/s | fraction | first 0.8 | holds 0.8 "
                + "| below 0.8 fault-free/faulty | fault-free p50/p99 ms | faulty p50/p99 ms | onset |");
        o.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        for (ScenarioResult r : scenarios) {
            o.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", r.label(compares()),
                    r.action(), rate(r.faultFreeOps()), rate(r.faultyOps()), ratio(r.fraction()), firstBack(r),
                    recovery(r), below(r), latency(r.faultFreeP50Ms(), r.faultFreeP99Ms()),
                    latency(r.faultyP50Ms(), r.faultyP99Ms()), onset(r));
        }
        if (!failed().isEmpty()) {
            o.println();
            for (ScenarioResult r : failed()) {
                o.println("- " + r.label(compares()) + " failed: " + r.error());
            }
        }
        o.flush();
        return w.toString();
    }

    /** When the fault struck, in words: the onset and, where it came earlier, the injection. */
    static String onset(ScenarioResult r) {
        if (r.onsetMillis() == null) {
            return r.injectedMillis() == null ? "-" : "injected at " + seconds(r.injectedMillis());
        }
        if (r.injectedMillis() != null && !r.injectedMillis().equals(r.onsetMillis())) {
            return "injected at " + seconds(r.injectedMillis()) + ", struck at " + seconds(r.onsetMillis());
        }
        return "at " + seconds(r.onsetMillis());
    }

    /** The time back at 0.8, {@code never}, or {@code -} where there is nothing to measure it against. */
    static String recovery(ScenarioResult r) {
        if (r.faultyOps() == null || r.faultFreeOps() == null || r.faultFreeOps() <= 0) {
            return "-";
        }
        return r.recoveryMillis() == null ? "never" : seconds(r.recoveryMillis());
    }

    /** The time to the first window back at 0.8, {@code never}, or {@code -}. */
    static String firstBack(ScenarioResult r) {
        if (r.faultyOps() == null || r.faultFreeOps() == null || r.faultFreeOps() <= 0) {
            return "-";
        }
        return r.firstBackMillis() == null ? "never" : seconds(r.firstBackMillis());
    }

    /** The shares of windows below 0.8, fault-free then faulty, as percentages: {@code 12%/9%}. */
    static String below(ScenarioResult r) {
        return percent(r.faultFreeBelowShare()) + "/" + percent(r.faultyBelowShare());
    }

    private static String percent(Double share) {
        return share == null ? "-" : String.format(Locale.ROOT, "%.0f%%", share * 100);
    }

    static String rate(Double v) {
        return v == null ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String ratio(Double v) {
        return v == null || v.isNaN() ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    static String latency(Double p50, Double p99) {
        return p50 == null ? "-" : String.format(Locale.ROOT, "%.1f/%.1f", p50, p99);
    }

    static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
