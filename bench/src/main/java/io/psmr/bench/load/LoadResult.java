package io.psmr.bench.load;

import io.psmr.kvstore.KvStatus;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What the clients of a load run measured.
 *
 * @param acknowledged operations answered (any status)
 * @param unanswered   operations that got no answer (timeout, proxy closed)
 * @param byStatus     answered operations per status
 * @param latencyMicros latency of answered operations, microseconds, from submit to answer
 * @param elapsedNanos from the clients' common start to the last client's last answer
 * @param initialReads the reads of every key made before the timed load ({@link RunControls#initialReads()});
 *                     recorded in the history, not counted in the other fields
 */
public record LoadResult(long acknowledged, long unanswered, Map<KvStatus, Long> byStatus, Histogram latencyMicros,
                         long elapsedNanos, long initialReads) {

    /** Copies the map. */
    public LoadResult {
        byStatus = Collections.unmodifiableMap(new EnumMap<>(byStatus));
    }

    /** A result without initial reads. */
    public LoadResult(long acknowledged, long unanswered, Map<KvStatus, Long> byStatus, Histogram latencyMicros,
                      long elapsedNanos) {
        this(acknowledged, unanswered, byStatus, latencyMicros, elapsedNanos, 0);
    }

    /** Answered operations per second of elapsed time. */
    public double throughput() {
        return elapsedNanos <= 0 ? 0 : acknowledged * 1e9 / elapsedNanos;
    }

    /** The latency at {@code percentile} (0 to 100), in microseconds. */
    public long latencyAt(double percentile) {
        return latencyMicros.getTotalCount() == 0 ? 0 : latencyMicros.getValueAtPercentile(percentile);
    }
}
