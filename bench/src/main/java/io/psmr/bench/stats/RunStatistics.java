package io.psmr.bench.stats;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The median, min and max of the measured runs of one configuration: the one place in {@code bench}
 * that summarises repeated runs, so that tables, CSV and charts agree on what "median" means (the
 * mean of the middle two for an even count).
 *
 * <p>Immutable and thread-safe; the factories copy their input.
 */
public final class RunStatistics {

    private final int count;
    private final double median;
    private final double min;
    private final double max;

    private RunStatistics(double[] sorted) {
        int n = sorted.length;
        this.count = n;
        this.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        this.min = sorted[0];
        this.max = sorted[n - 1];
    }

    /**
     * The statistics of {@code values}.
     *
     * @throws IllegalArgumentException if there are no values, or one is NaN
     */
    public static RunStatistics of(double... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("no measured runs to summarise");
        }
        double[] sorted = values.clone();
        for (double v : sorted) {
            if (Double.isNaN(v)) {
                throw new IllegalArgumentException("a measured run is NaN: " + Arrays.toString(values));
            }
        }
        Arrays.sort(sorted);
        return new RunStatistics(sorted);
    }

    /** The statistics of {@code values}; see {@link #of(double...)}. */
    public static RunStatistics of(long[] values) {
        return of(Arrays.stream(values).asDoubleStream().toArray());
    }

    /** The statistics of {@code values}; see {@link #of(double...)}. */
    public static RunStatistics of(Collection<? extends Number> values) {
        return of(values.stream().mapToDouble(Number::doubleValue).toArray());
    }

    /** The statistics of {@code metric} over {@code runs}; see {@link #of(double...)}. */
    public static <T> RunStatistics of(List<T> runs, ToDoubleFunction<? super T> metric) {
        return of(runs.stream().mapToDouble(metric).toArray());
    }

    /** How many runs. */
    public int count() {
        return count;
    }

    /** The middle value, or the mean of the middle two for an even count. */
    public double median() {
        return median;
    }

    /** The lowest value. */
    public double min() {
        return min;
    }

    /** The highest value. */
    public double max() {
        return max;
    }

    @Override
    public String toString() {
        return "median " + median + " [" + min + "-" + max + "] of " + count;
    }
}
