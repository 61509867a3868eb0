package io.psmr.bench.demo;

import java.util.Arrays;

/**
 * The timed runs of one configuration.
 *
 * @param config     the configuration
 * @param commands   commands per run
 * @param throughput commands per second of each run, in run order
 */
public record DemoResult(DemoConfig config, int commands, double[] throughput) {

    public DemoResult {
        if (throughput.length == 0) {
            throw new IllegalArgumentException("no runs");
        }
        throughput = throughput.clone();
    }

    private double[] sorted() {
        double[] s = throughput.clone();
        Arrays.sort(s);
        return s;
    }

    /** Median throughput in commands per second (the mean of the middle two for an even count). */
    public double median() {
        double[] s = sorted();
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** Lowest throughput. */
    public double min() {
        return sorted()[0];
    }

    /** Highest throughput. */
    public double max() {
        double[] s = sorted();
        return s[s.length - 1];
    }
}
