package io.psmr.bench.faults;

import io.psmr.bench.load.HistorySink;
import io.psmr.bench.load.OpRecord;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * What {@code psmr bench faults} records of a load: answered operations counted by completion time in
 * {@value #BUCKET_MILLIS} ms buckets from the {@link #start origin}, and their latencies (microseconds, 3
 * significant digits) in two histograms, one for the fault-free window and one for the faulty window, each
 * operation filed by its completion time. Operations without an answer are not counted, nor are initial reads.
 *
 * <p><b>Cost.</b> A {@link #record} is an atomic increment and a wait-free histogram record: no allocation beyond
 * the {@link OpRecord} the load makes anyway.
 *
 * <p><b>Threads.</b> {@link #record} is called by every client thread at once; {@link #start} once, before the first
 * record, by the load's thread; {@link #faultyFrom} once by the thread that injects the fault; the getters by any
 * thread, best after the load ended.
 */
final class CompletionTimeline implements HistorySink {

    /** The width of a bucket. */
    static final long BUCKET_MILLIS = 100;
    /** The width of a bucket in nanoseconds. */
    static final long BUCKET_NANOS = BUCKET_MILLIS * 1_000_000L;
    /** The longest latency recorded, in microseconds (longer ones are recorded as this): an hour. */
    static final long MAX_LATENCY_MICROS = 3_600_000_000L;

    private final AtomicLongArray counts;
    private final long faultFreeFromNanos;
    private final long faultFreeToNanos;
    private final long faultyNanos;
    private final ConcurrentHistogram faultFreeLatency = new ConcurrentHistogram(1, MAX_LATENCY_MICROS, 3);
    private final ConcurrentHistogram faultyLatency = new ConcurrentHistogram(1, MAX_LATENCY_MICROS, 3);
    private volatile long originNanos = Long.MAX_VALUE;
    private volatile long faultyFromNanos = Long.MAX_VALUE;

    /**
     * A timeline of up to {@code longest}, whose fault-free window is [{@code warmup}, {@code faultFree}) and faulty
     * window {@code faulty} long from the time {@link #faultyFrom} sets.
     */
    CompletionTimeline(Duration longest, Duration warmup, Duration faultFree, Duration faulty) {
        counts = new AtomicLongArray(Math.toIntExact(longest.toNanos() / BUCKET_NANOS + 1));
        faultFreeFromNanos = warmup.toNanos();
        faultFreeToNanos = faultFree.toNanos();
        faultyNanos = faulty.toNanos();
    }

    /** Sets the origin, time 0 of the timeline ({@link System#nanoTime}): when the clients start. */
    void start(long nanoTime) {
        originNanos = nanoTime;
    }

    /** The origin ({@link System#nanoTime}); {@link Long#MAX_VALUE} before {@link #start}. */
    long origin() {
        return originNanos;
    }

    /** Opens the faulty window at {@code fromNanos} after the origin; its latencies go to {@link #faultyLatency()}. */
    void faultyFrom(long fromNanos) {
        faultyFromNanos = fromNanos;
    }

    @Override
    public void record(OpRecord op) {
        if (op.initial() || !op.acknowledged()) {
            return;
        }
        long t = op.completeNs() - originNanos;
        if (t < 0) {
            return;
        }
        long bucket = t / BUCKET_NANOS;
        if (bucket < counts.length()) {
            counts.incrementAndGet((int) bucket);
        }
        long micros = Math.min(MAX_LATENCY_MICROS, Math.max(1, (op.completeNs() - op.invokeNs()) / 1000));
        long faultyFrom = faultyFromNanos;
        if (t >= faultFreeFromNanos && t < faultFreeToNanos) {
            faultFreeLatency.recordValue(micros);
        } else if (t >= faultyFrom && t - faultyFrom < faultyNanos) {
            faultyLatency.recordValue(micros);
        }
    }

    /** The counts of the first {@code n} buckets (fewer if the timeline is shorter). */
    long[] buckets(int n) {
        long[] out = new long[Math.min(n, counts.length())];
        for (int i = 0; i < out.length; i++) {
            out[i] = counts.get(i);
        }
        return out;
    }

    /** A copy of the fault-free window's latencies. */
    Histogram faultFreeLatency() {
        return faultFreeLatency.copy();
    }

    /** A copy of the faulty window's latencies. */
    Histogram faultyLatency() {
        return faultyLatency.copy();
    }
}
