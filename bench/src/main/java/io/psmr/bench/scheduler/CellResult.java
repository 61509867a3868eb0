package io.psmr.bench.scheduler;

/**
 * The summary of a cell's measured runs: medians, with min and max of throughput.
 *
 * @param cell            the configuration
 * @param throughputCps   median commands per second
 * @param minCps          slowest run
 * @param maxCps          fastest run
 * @param ratioVsCbase    median throughput over CBASE's median at the same workers and conflicts; NaN if not measured
 * @param limitFraction   median throughput over min(workers, cores) x sequential median, same batch and conflicts;
 *                        NaN if not measured
 * @param ceilingFraction median over rounds of the cell's run over the {@code partitioned} run of the same
 *                        round, at the same batch, workers and conflicts (each pair ran minutes apart at most, so
 *                        drift in the machine's speed cancels); NaN if not measured
 * @param ceilingMin      the lowest of those per-round fractions; NaN if not measured
 * @param ceilingMax      the highest of those per-round fractions; NaN if not measured
 * @param avgGraphSize    median over runs of the mean graph size; NaN where there is no graph
 * @param p50Micros       median batch latency over all measured runs, microseconds; NaN where none is recorded
 * @param p99Micros       99th percentile batch latency over all measured runs, microseconds; NaN where none is recorded
 * @param runs            measured runs
 * @param leftOut         for a {@code partitioned} cell, the commands of its cycle that touch keys of two
 *                        partitions and are left out of its streams; 0 for every other cell
 */
public record CellResult(Cell cell, double throughputCps, double minCps, double maxCps, double ratioVsCbase,
                         double limitFraction, double ceilingFraction, double ceilingMin, double ceilingMax,
                         double avgGraphSize, double p50Micros, double p99Micros, int runs, long leftOut) {
}
