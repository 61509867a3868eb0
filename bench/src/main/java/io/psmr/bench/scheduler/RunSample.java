package io.psmr.bench.scheduler;

import org.HdrHistogram.Histogram;

/**
 * What one timed run measured.
 *
 * @param throughputCps  commands completed per second in the measured window
 * @param avgGraphSize   time-weighted mean number of batches in the dependency graph in the window (0 sequential)
 * @param latencyNanos   batch latency, delivery to completion, of the batches completed in the window
 */
public record RunSample(double throughputCps, double avgGraphSize, Histogram latencyNanos) {
}
