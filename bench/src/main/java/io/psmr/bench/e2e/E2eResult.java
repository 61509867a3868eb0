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
 * @param variant           the sweep point of the runs
 * @param leaderBytesPerOp  PBFT: median over runs of the most bytes any one replica sent per acknowledged operation
 *                          (with fixed leaders, the primary's); NaN for other orderings
 * @param leaderBytesMin    the least of the same over the runs
 * @param leaderBytesMax    the most of the same over the runs
 * @param meanBytesPerOp    PBFT: median over runs of the bytes a replica sent per acknowledged operation, averaged
 *                          over the replicas; NaN for other orderings
 * @param deadlocks         MLBFT: median over runs of the deadlocks a replica resolved (every replica resolves the same);
 *                          NaN for other orderings
 * @param deadlocksMin      the least of the same over the runs
 * @param deadlocksMax      the most of the same over the runs
 */
public record E2eResult(OrderingProtocol ordering, SchedulerMode mode, int batch, double throughputOps, double minOps, double maxOps, double ratioVsCbase,
                        double ratioVsSequential, double meanBatch, long p50Micros, long p99Micros, long p999Micros,
                        long retries, int runs, double ratioVsLocal, E2eVariant variant, double leaderBytesPerOp,
                        double leaderBytesMin, double leaderBytesMax, double meanBytesPerOp, double deadlocks,
                        double deadlocksMin, double deadlocksMax) {

    /** A result without deadlock figures (any ordering but MLBFT). */
    public E2eResult(OrderingProtocol ordering, SchedulerMode mode, int batch, double throughputOps, double minOps,
                     double maxOps, double ratioVsCbase, double ratioVsSequential, double meanBatch, long p50Micros,
                     long p99Micros, long p999Micros, long retries, int runs, double ratioVsLocal, E2eVariant variant,
                     double leaderBytesPerOp, double leaderBytesMin, double leaderBytesMax, double meanBytesPerOp) {
        this(ordering, mode, batch, throughputOps, minOps, maxOps, ratioVsCbase, ratioVsSequential, meanBatch, p50Micros,
                p99Micros, p999Micros, retries, runs, ratioVsLocal, variant, leaderBytesPerOp, leaderBytesMin,
                leaderBytesMax, meanBytesPerOp, Double.NaN, Double.NaN, Double.NaN);
    }

    /**
     * What the row's execution is called: the scheduler mode, or {@code mlbft} for MLBFT, whose replicas run one worker
     * per partition instead of a scheduler.
     */
    public String modeName() {
        return ordering == OrderingProtocol.MLBFT ? "mlbft" : mode.cliName();
    }

    /** A result without traffic figures, at PBFT's default point (or none for other orderings) and {@code batch}. */
    public E2eResult(OrderingProtocol ordering, SchedulerMode mode, int batch, double throughputOps, double minOps, double maxOps,
            double ratioVsCbase, double ratioVsSequential, double meanBatch, long p50Micros, long p99Micros, long p999Micros,
            long retries, int runs, double ratioVsLocal) {
        this(ordering, mode, batch, throughputOps, minOps, maxOps, ratioVsCbase, ratioVsSequential, meanBatch, p50Micros,
                p99Micros, p999Micros, retries, runs, ratioVsLocal,
                new E2eVariant(E2eVariant.DEFAULT_PILLARS, E2eVariant.DEFAULT_ROTATION, batch, 0).forOrdering(ordering),
                Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
}
