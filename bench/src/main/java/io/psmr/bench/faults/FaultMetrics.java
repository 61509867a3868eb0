package io.psmr.bench.faults;

import java.util.OptionalLong;

/**
 * The arithmetic of {@code psmr bench faults}' report, over a timeline of completed operations per bucket
 * ({@link CompletionTimeline}): throughput over a window, the fraction faulty/fault-free, and the time from the
 * fault's onset until throughput is back at {@value #RECOVERED} of fault-free and stays there. Stateless.
 *
 * <p><b>Recovery, exactly.</b> Throughput at a bucket {@code s} is the rate over the {@link #SMOOTHING_BUCKETS}
 * buckets starting at {@code s} (a 1 s window at 100 ms buckets). Over the faulty window [{@code onset},
 * {@code end}) those windows start at every bucket from {@code onset} to {@code end - SMOOTHING_BUCKETS}. The
 * recovery is the first such start from which every later window holds at least {@value #RECOVERED} × the
 * fault-free rate, less {@code onset}: 0 if throughput never dropped below it, empty ("never") if the last
 * window of the faulty window is below it. That is strict: one dip anywhere in the faulty window, the fault's or the
 * machine's, sets it. So the report also gives the <b>first return</b> ({@link #firstBackMillis}: the first window
 * from the onset on at or above the threshold) and, for the fault-free and the faulty window alike, the
 * <b>share of windows below</b> the threshold ({@link #shareBelow}): a faulty window with no larger share than the
 * fault-free one dips no more than the machine does without a fault.
 */
public final class FaultMetrics {

    /** The fraction of fault-free throughput that counts as recovered. */
    public static final double RECOVERED = 0.8;
    /** The smoothing window of the recovery, in buckets: 1 s at 100 ms buckets. */
    public static final int SMOOTHING_BUCKETS = 10;

    private FaultMetrics() {
    }

    /**
     * Operations per second over buckets [{@code from}, {@code to}) of {@code bucketMillis} ms each.
     *
     * @throws IllegalArgumentException if the window is empty or outside the timeline
     */
    public static double opsPerSecond(long[] buckets, int from, int to, long bucketMillis) {
        if (from < 0 || to <= from || to > buckets.length) {
            throw new IllegalArgumentException("window [" + from + ", " + to + ") is empty or outside a timeline of "
                    + buckets.length + " buckets");
        }
        long sum = 0;
        for (int i = from; i < to; i++) {
            sum += buckets[i];
        }
        return sum * 1000.0 / ((to - from) * bucketMillis);
    }

    /** {@code faulty / faultFree}; NaN when the fault-free rate is 0 (nothing to compare with). */
    public static double fraction(double faultFree, double faulty) {
        return faultFree > 0 ? faulty / faultFree : Double.NaN;
    }

    /**
     * The time from the onset until throughput is back at {@value #RECOVERED} × {@code faultFree} and stays there
     * through the faulty window [{@code onset}, {@code end}) (see the class comment), in milliseconds; empty if it
     * is not back by the window's last second.
     *
     * @throws IllegalArgumentException if the faulty window is shorter than the smoothing window or outside the timeline
     */
    public static OptionalLong recoveryMillis(long[] buckets, int onset, int end, long bucketMillis, double faultFree) {
        checkWindow(buckets, onset, end);
        double threshold = RECOVERED * faultFree;
        int back = -1;
        for (int s = end - SMOOTHING_BUCKETS; s >= onset; s--) {
            if (opsPerSecond(buckets, s, s + SMOOTHING_BUCKETS, bucketMillis) < threshold) {
                break;
            }
            back = s;
        }
        return back < 0 ? OptionalLong.empty() : OptionalLong.of((back - onset) * bucketMillis);
    }

    /**
     * The time from the onset until the first 1 s window (starting at a bucket of [{@code onset}, {@code end})) holds
     * at least {@value #RECOVERED} × {@code faultFree}, in milliseconds: 0 if the first one does; empty if none does.
     *
     * @throws IllegalArgumentException as {@link #recoveryMillis}
     */
    public static OptionalLong firstBackMillis(long[] buckets, int onset, int end, long bucketMillis, double faultFree) {
        checkWindow(buckets, onset, end);
        double threshold = RECOVERED * faultFree;
        for (int s = onset; s <= end - SMOOTHING_BUCKETS; s++) {
            if (opsPerSecond(buckets, s, s + SMOOTHING_BUCKETS, bucketMillis) >= threshold) {
                return OptionalLong.of((s - onset) * bucketMillis);
            }
        }
        return OptionalLong.empty();
    }

    /**
     * The share of the 1 s windows starting at the buckets of [{@code from}, {@code to} − {@link #SMOOTHING_BUCKETS}]
     * whose rate is below {@value #RECOVERED} × {@code faultFree}, from 0 to 1.
     *
     * @throws IllegalArgumentException if [{@code from}, {@code to}) is shorter than the smoothing window or outside
     *                                  the timeline
     */
    public static double shareBelow(long[] buckets, int from, int to, long bucketMillis, double faultFree) {
        checkWindow(buckets, from, to);
        double threshold = RECOVERED * faultFree;
        int below = 0;
        int windows = 0;
        for (int s = from; s <= to - SMOOTHING_BUCKETS; s++) {
            windows++;
            if (opsPerSecond(buckets, s, s + SMOOTHING_BUCKETS, bucketMillis) < threshold) {
                below++;
            }
        }
        return (double) below / windows;
    }

    private static void checkWindow(long[] buckets, int from, int to) {
        if (from < 0 || to - from < SMOOTHING_BUCKETS || to > buckets.length) {
            throw new IllegalArgumentException("window [" + from + ", " + to + ") is shorter than "
                    + SMOOTHING_BUCKETS + " buckets or outside a timeline of " + buckets.length + " buckets");
        }
    }

    /** Completions per whole second: the sums of each {@code 1000 / bucketMillis} buckets (a last partial second dropped). */
    public static long[] perSecond(long[] buckets, long bucketMillis) {
        int per = (int) (1000 / bucketMillis);
        long[] out = new long[buckets.length / per];
        for (int i = 0; i < out.length * per; i++) {
            out[i / per] += buckets[i];
        }
        return out;
    }

    /**
     * The smoothed rate at each bucket, ops/s: the rate over the {@link #SMOOTHING_BUCKETS} buckets ending with it
     * (fewer at the start), as the timeline chart plots it.
     */
    public static double[] trailingRate(long[] buckets, long bucketMillis) {
        double[] out = new double[buckets.length];
        long sum = 0;
        for (int i = 0; i < buckets.length; i++) {
            sum += buckets[i];
            if (i >= SMOOTHING_BUCKETS) {
                sum -= buckets[i - SMOOTHING_BUCKETS];
            }
            int width = Math.min(i + 1, SMOOTHING_BUCKETS);
            out[i] = sum * 1000.0 / (width * bucketMillis);
        }
        return out;
    }
}
