package io.psmr.bench.e2e;

import io.psmr.scheduler.SchedulerMode;

import io.psmr.ordering.OrderingProtocol;

/**
 * The summary of one mode's measured runs.
 *
 * @param ordering          the ordering layer
 * @param mode              the replica configuration
 * @param batch             most client commands per batch of this mode
 * @param throughputOps     median acknowledged operations per second
 * @param minOps            slowest run
 * @param maxOps            fastest run
 * @param ratioVsCbase      median over CBASE's median, same invocation; NaN if CBASE was not run
 * @param ratioVsSequential median over sequential's median, same invocation; NaN if sequential was not run
 * @param meanBatch         median over runs of the proxy's mean client commands per batch
 * @param p50Micros         client latency, submit to first reply, all measured runs merged
 * @param p99Micros         99th percentile of the same
 * @param p999Micros        99.9th percentile of the same
 * @param retries           batches the proxy proposed again, over all measured runs
 * @param runs              measured runs
 * @param ratioVsLocal      median over the same mode's median over the local sequencer, same invocation; NaN if
 *                          local was not run
 */
public record E2eResult(OrderingProtocol ordering, SchedulerMode mode, int batch, double throughputOps, double minOps, double maxOps, double ratioVsCbase,
                        double ratioVsSequential, double meanBatch, long p50Micros, long p99Micros, long p999Micros,
                        long retries, int runs, double ratioVsLocal) {
}
