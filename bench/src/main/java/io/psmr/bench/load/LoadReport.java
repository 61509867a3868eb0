package io.psmr.bench.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StateDigest;
import io.psmr.proxy.ProxyStats;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outcome of a {@link LoadRun}, printable as text or as one JSON object.
 *
 * @param options  what was run
 * @param replica  the replicas' settings
 * @param result   the clients' measurements
 * @param proxy    the proxy's counters at the end
 * @param digests  each replica's state digest, in replica id order
 * @param cores    available processors of the machine
 * @param ordering the cluster's ordering layer
 */
public record LoadReport(LoadOptions options, ReplicaConfig replica, LoadResult result, ProxyStats proxy,
                         List<Long> digests, int cores, LoadTarget ordering) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Copies the list. */
    public LoadReport {
        digests = List.copyOf(digests);
        java.util.Objects.requireNonNull(ordering, "ordering");
    }

    /** A report of a run over the local sequencer. */
    public LoadReport(LoadOptions options, ReplicaConfig replica, LoadResult result, ProxyStats proxy,
                      List<Long> digests, int cores) {
        this(options, replica, result, proxy, digests, cores, LocalLoadRun.TARGET);
    }

    /**
     * The hot-key writes: the commands the run's {@link HotKeyDecorator} added to marked batches (the
     * hot writer's OPEN_SESSIONs included), which is every command the proxy's decorator added.
     */
    public long hotWrites() {
        return proxy.addedCommands();
    }

    /** Whether every replica ended with the same digest. */
    public boolean digestsAgree() {
        return digests.stream().distinct().count() <= 1;
    }

    /** The human-readable report. */
    public void printText(PrintWriter out) {
        LoadOptions o = options;
        WorkloadSpec w = o.workload();
        if (ordering.ordering() == io.psmr.ordering.OrderingProtocol.MLBFT) {
            out.printf(Locale.ROOT, "psmr load: %d replicas (%s), each running one worker per partition (no scheduler)%n",
                    o.replicas(), ordering.description());
        } else {
            out.printf(Locale.ROOT, "psmr load: %d replicas (%s), mode %s: %s, %s graph%s%n", o.replicas(),
                    ordering.description(), o.mode().cliName(), replica.detection(), replica.graph(),
                    replica.sequential() ? ", sequential execution" : ", " + replica.workers() + " workers each");
        }
        out.printf(Locale.ROOT, "  %d closed-loop clients for %s, %d keys, reads %.0f%%, MULTI_PUT %.0f%% (%d keys), values %d B%n",
                w.clients(), seconds(w.duration().toNanos()), w.keys(), 100 * w.readFraction(), 100 * w.multiPutFraction(),
                w.multiPutKeys(), w.valueSize());
        out.printf(Locale.ROOT, "  proxy: batches of at most %d, window %d, linger %s, hot-key batches %s%%; machine: %d cores%n",
                o.batch(), o.window(), o.linger().isZero() ? "0" : o.linger().toString(), number(o.conflictPercent()), cores);
        if (replica.capacity().equals(io.psmr.kvstore.StoreCapacity.unbounded())) {
            out.println("  store capacity: not bounded (MLBFT has no global order to refuse writes FULL in)");
        } else {
            out.printf(Locale.ROOT, "  store capacity: %d entries, %d key and value bytes (writes beyond it are refused FULL)%n",
                    replica.capacity().maxEntries(), replica.capacity().maxBytes());
        }
        out.println();
        out.printf(Locale.ROOT, "acknowledged ops  %d%s%n", result.acknowledged(), statusBreakdown());
        if (result.unanswered() > 0) {
            out.printf(Locale.ROOT, "unanswered ops    %d (timed out or cut off; outcome unknown)%n", result.unanswered());
        }
        if (result.initialReads() > 0) {
            out.printf(Locale.ROOT, "initial reads     %d (every key, before the timed load; in the history only)%n", result.initialReads());
        }
        out.printf(Locale.ROOT, "elapsed           %s%n", seconds(result.elapsedNanos()));
        out.printf(Locale.ROOT, "throughput        %.0f ops/s%n", result.throughput());
        out.printf(Locale.ROOT, "latency           p50 %d us, p99 %d us, p999 %d us, max %d us, mean %.0f us%n",
                result.latencyAt(50), result.latencyAt(99), result.latencyAt(99.9), result.latencyMicros().getMaxValue(),
                result.latencyMicros().getTotalCount() == 0 ? 0.0 : result.latencyMicros().getMean());
        out.printf(Locale.ROOT, "batches           %d (mean %.1f client commands), %d retried, %d hot-key writes%n",
                proxy.batches(), proxy.meanBatchSize(), proxy.retries(), hotWrites());
        for (int i = 0; i < digests.size(); i++) {
            out.printf(Locale.ROOT, "%-18s%s%n", i == 0 ? "digests" : "", "replica " + (i + 1) + "  " + StateDigest.hex(digests.get(i)));
        }
        if (digests.isEmpty()) {
            out.println("digests           none taken (agreement not verified)");
        } else {
            out.println(digestsAgree() ? "digests agree" : "DIGESTS DIFFER: the replicas diverged");
        }
        out.flush();
    }

    private String statusBreakdown() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<KvStatus, Long> e : result.byStatus().entrySet()) {
            b.append(b.length() == 0 ? " (" : ", ").append(e.getKey()).append(' ').append(e.getValue());
        }
        return b.length() == 0 ? "" : b.append(')').toString();
    }

    /**
     * One JSON object on one line: {@code ops}, {@code throughput_ops}, {@code p50_us},
     * {@code p99_us}, {@code p999_us}, {@code max_us}, {@code mean_us}, {@code digests} (hex
     * strings), {@code digests_agree}, the settings (the store capacity as {@code max_keys} and
     * {@code max_bytes}), the status counts ({@code statuses}: each {@link KvStatus} answered at least once,
     * FULL and SESSION_EXPIRED included) and the proxy's counters.
     */
    public String toJson() {
        LoadOptions o = options;
        WorkloadSpec w = o.workload();
        ObjectNode b = JSON.createObjectNode();
        b.put("ops", result.acknowledged());
        b.put("unanswered", result.unanswered());
        b.put("initial_reads", result.initialReads());
        b.put("elapsed_s", fixed(result.elapsedNanos() / 1e9, 3));
        b.put("throughput_ops", fixed(result.throughput(), 1));
        b.put("p50_us", result.latencyAt(50));
        b.put("p99_us", result.latencyAt(99));
        b.put("p999_us", result.latencyAt(99.9));
        b.put("max_us", result.latencyMicros().getMaxValue());
        b.put("mean_us", fixed(result.latencyMicros().getTotalCount() == 0 ? 0.0 : result.latencyMicros().getMean(), 1));
        ArrayNode d = b.putArray("digests");
        digests.forEach(x -> d.add(StateDigest.hex(x)));
        b.put("digests_agree", digestsAgree());
        ObjectNode s = b.putObject("statuses");
        result.byStatus().forEach((status, count) -> s.put(status.name(), count));
        b.put("batches", proxy.batches());
        b.put("mean_batch", fixed(proxy.meanBatchSize(), 2));
        b.put("retries", proxy.retries());
        b.put("hot_writes", hotWrites());
        b.put("replicas", o.replicas());
        b.put("ordering", ordering.ordering().cliName());
        b.put("embedded", ordering.embedded());
        EmbeddedOrdering.of(ordering.ordering()).putSettings(ordering, b);
        b.put("mode", o.mode().cliName());
        b.put("workers", replica.workers());
        b.put("clients", w.clients());
        b.put("duration_s", fixed(w.duration().toNanos() / 1e9, 3));
        b.put("batch", o.batch());
        b.put("window", o.window());
        b.put("conflict_pct", plain(o.conflictPercent()));
        b.put("keys", w.keys());
        b.put("read_fraction", plain(w.readFraction()));
        b.put("multi_put_fraction", plain(w.multiPutFraction()));
        b.put("value_size", w.valueSize());
        b.put("max_keys", replica.capacity().maxEntries());
        b.put("max_bytes", replica.capacity().maxBytes());
        b.put("seed", w.seed());
        b.put("cores", cores);
        try {
            return JSON.writeValueAsString(b);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON: " + e.getMessage(), e); // a tree of plain values always writes
        }
    }

    /** {@code v} with exactly {@code places} decimals, as a JSON number. */
    private static BigDecimal fixed(double v, int places) {
        return BigDecimal.valueOf(v).setScale(places, RoundingMode.HALF_UP);
    }

    /** {@code v} as an integer if it is one, else as is. */
    private static BigDecimal plain(double v) {
        BigDecimal b = BigDecimal.valueOf(v);
        return v == Math.rint(v) ? b.setScale(0, RoundingMode.UNNECESSARY) : b;
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}
