package io.psmr.bench.demo;

import io.psmr.bench.stats.RunStatistics;

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

    private RunStatistics statistics() {
        return RunStatistics.of(throughput);
    }

    /** Median throughput in commands per second (the mean of the middle two for an even count). */
    public double median() {
        return statistics().median();
    }

    /** Lowest throughput. */
    public double min() {
        return statistics().min();
    }

    /** Highest throughput. */
    public double max() {
        return statistics().max();
    }
}
