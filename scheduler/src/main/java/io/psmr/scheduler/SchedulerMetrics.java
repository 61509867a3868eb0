package io.psmr.scheduler;

/**
 * A snapshot of a scheduler's counters. Times are wall-clock nanoseconds summed over workers.
 *
 * @param workers           worker threads (1 in sequential mode, where the delivery thread executes)
 * @param batchesDelivered  batches accepted by {@code deliver}, rejected ones included
 * @param commandsDelivered commands in those batches
 * @param batchesExecuted   batches whose commands have all run
 * @param commandsExecuted  commands run (including those whose service call threw)
 * @param commandsFailed    commands whose service call threw
 * @param batchesRejected   batches refused because their summary missed a key
 * @param graph             the dependency graph's counters (all zero in sequential mode)
 * @param workerBusyNanos   time workers spent executing batches
 * @param workerIdleNanos   time workers spent waiting for a free batch
 */
public record SchedulerMetrics(int workers, long batchesDelivered, long commandsDelivered, long batchesExecuted,
                               long commandsExecuted, long commandsFailed, long batchesRejected,
                               GraphStatistics graph, long workerBusyNanos, long workerIdleNanos) {

    /** Fraction of worker time spent executing, in [0, 1]; 0 before any work. */
    public double workerUtilisation() {
        long total = workerBusyNanos + workerIdleNanos;
        return total == 0 ? 0 : (double) workerBusyNanos / total;
    }
}
