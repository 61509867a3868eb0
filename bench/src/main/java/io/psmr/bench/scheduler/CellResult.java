package io.psmr.bench.scheduler;

/**
 * The summary of a cell's measured runs: medians, with min and max of throughput.
 *
 * @param cell           the configuration
 * @param throughputCps  median commands per second
 * @param minCps         slowest run
 * @param maxCps         fastest run
 * @param ratioVsCbase   median throughput over CBASE's median at the same workers and conflicts; NaN if not measured
 * @param limitFraction  median throughput over min(workers, cores) x sequential median, same batch and conflicts; NaN if not measured
 * @param avgGraphSize   median over runs of the mean graph size
 * @param p50Micros      median batch latency over all measured runs, microseconds
 * @param p99Micros      99th percentile batch latency over all measured runs, microseconds
 * @param runs           measured runs
 */
public record CellResult(Cell cell, double throughputCps, double minCps, double maxCps, double ratioVsCbase,
                         double limitFraction, double avgGraphSize, double p50Micros, double p99Micros, int runs) {
}
