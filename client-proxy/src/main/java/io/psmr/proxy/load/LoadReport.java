package io.psmr.proxy.load;

import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StateDigest;
import io.psmr.proxy.ProxyStats;
import java.io.PrintWriter;
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
                         List<Long> digests, int cores, LoadOrdering ordering) {

    /** Copies the list. */
    public LoadReport {
        digests = List.copyOf(digests);
        java.util.Objects.requireNonNull(ordering, "ordering");
    }

    /** A report of a run over the local sequencer. */
    public LoadReport(LoadOptions options, ReplicaConfig replica, LoadResult result, ProxyStats proxy,
                      List<Long> digests, int cores) {
        this(options, replica, result, proxy, digests, cores, LoadOrdering.LOCAL);
    }

    /** Whether every replica ended with the same digest. */
    public boolean digestsAgree() {
        return digests.stream().distinct().count() <= 1;
    }

    /** The human-readable report. */
    public void printText(PrintWriter out) {
        LoadOptions o = options;
        WorkloadSpec w = o.workload();
        out.printf(Locale.ROOT, "psmr load: %d replicas (%s), mode %s: %s, %s graph%s%n", o.replicas(),
                ordering.embedded() ? "embedded, " + ordering.description() : "separate processes, " + ordering.description(), o.mode().label(), replica.detection(), replica.graph(), replica.sequential() ? ", sequential execution"
                        : ", " + replica.workers() + " workers each");
        out.printf(Locale.ROOT, "  %d closed-loop clients for %s, %d keys, reads %.0f%%, MULTI_PUT %.0f%% (%d keys), values %d B%n",
                w.clients(), seconds(w.duration().toNanos()), w.keys(), 100 * w.readFraction(), 100 * w.multiPutFraction(),
                w.multiPutKeys(), w.valueSize());
        out.printf(Locale.ROOT, "  proxy: batches of at most %d, window %d, linger %s, hot-key batches %s%%; machine: %d cores%n",
                o.batch(), o.window(), o.linger().isZero() ? "0" : o.linger().toString(), number(o.conflictPercent()), cores);
        out.println();
        out.printf(Locale.ROOT, "acknowledged ops  %d%s%n", result.acknowledged(), statusBreakdown());
        if (result.unanswered() > 0) {
            out.printf(Locale.ROOT, "unanswered ops    %d (timed out or cut off; outcome unknown)%n", result.unanswered());
        }
        out.printf(Locale.ROOT, "elapsed           %s%n", seconds(result.elapsedNanos()));
        out.printf(Locale.ROOT, "throughput        %.0f ops/s%n", result.throughput());
        out.printf(Locale.ROOT, "latency           p50 %d us, p99 %d us, p999 %d us, max %d us, mean %.0f us%n",
                result.latencyAt(50), result.latencyAt(99), result.latencyAt(99.9), result.latencyMicros().getMaxValue(),
                result.latencyMicros().getTotalCount() == 0 ? 0.0 : result.latencyMicros().getMean());
        out.printf(Locale.ROOT, "batches           %d (mean %.1f client commands), %d retried, %d hot-key writes%n",
                proxy.batches(), proxy.meanBatchSize(), proxy.retries(), proxy.hotWrites());
        for (int i = 0; i < digests.size(); i++) {
            out.printf(Locale.ROOT, "%-18s%s%n", i == 0 ? "digests" : "", "replica " + (i + 1) + "  " + StateDigest.hex(digests.get(i)));
        }
        out.println(digestsAgree() ? "digests agree" : "DIGESTS DIFFER: the replicas diverged");
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
     * strings), {@code digests_agree}, the settings, the status counts and the proxy's counters.
     */
    public String toJson() {
        LoadOptions o = options;
        WorkloadSpec w = o.workload();
        StringBuilder b = new StringBuilder(512);
        b.append('{');
        field(b, "ops", Long.toString(result.acknowledged()));
        field(b, "unanswered", Long.toString(result.unanswered()));
        field(b, "elapsed_s", String.format(Locale.ROOT, "%.3f", result.elapsedNanos() / 1e9));
        field(b, "throughput_ops", String.format(Locale.ROOT, "%.1f", result.throughput()));
        field(b, "p50_us", Long.toString(result.latencyAt(50)));
        field(b, "p99_us", Long.toString(result.latencyAt(99)));
        field(b, "p999_us", Long.toString(result.latencyAt(99.9)));
        field(b, "max_us", Long.toString(result.latencyMicros().getMaxValue()));
        field(b, "mean_us", String.format(Locale.ROOT, "%.1f",
                result.latencyMicros().getTotalCount() == 0 ? 0.0 : result.latencyMicros().getMean()));
        StringBuilder d = new StringBuilder("[");
        for (int i = 0; i < digests.size(); i++) {
            d.append(i == 0 ? "" : ",").append('"').append(StateDigest.hex(digests.get(i))).append('"');
        }
        field(b, "digests", d.append(']').toString());
        field(b, "digests_agree", Boolean.toString(digestsAgree()));
        StringBuilder s = new StringBuilder("{");
        for (Map.Entry<KvStatus, Long> e : result.byStatus().entrySet()) {
            s.append(s.length() == 1 ? "" : ",").append('"').append(e.getKey()).append("\":").append(e.getValue());
        }
        field(b, "statuses", s.append('}').toString());
        field(b, "batches", Long.toString(proxy.batches()));
        field(b, "mean_batch", String.format(Locale.ROOT, "%.2f", proxy.meanBatchSize()));
        field(b, "retries", Long.toString(proxy.retries()));
        field(b, "hot_writes", Long.toString(proxy.hotWrites()));
        field(b, "replicas", Integer.toString(o.replicas()));
        field(b, "ordering", Json.quote(ordering.label()));
        field(b, "embedded", Boolean.toString(ordering.embedded()));
        field(b, "mode", Json.quote(o.mode().label()));
        field(b, "workers", Integer.toString(replica.workers()));
        field(b, "clients", Integer.toString(w.clients()));
        field(b, "duration_s", String.format(Locale.ROOT, "%.3f", w.duration().toNanos() / 1e9));
        field(b, "batch", Integer.toString(o.batch()));
        field(b, "window", Integer.toString(o.window()));
        field(b, "conflict_pct", number(o.conflictPercent()));
        field(b, "keys", Integer.toString(w.keys()));
        field(b, "read_fraction", number(w.readFraction()));
        field(b, "multi_put_fraction", number(w.multiPutFraction()));
        field(b, "value_size", Integer.toString(w.valueSize()));
        field(b, "seed", Long.toString(w.seed()));
        field(b, "cores", Integer.toString(cores));
        b.setLength(b.length() - 1);
        return b.append('}').toString();
    }

    private static void field(StringBuilder b, String name, String json) {
        b.append('"').append(name).append("\":").append(json).append(',');
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}
