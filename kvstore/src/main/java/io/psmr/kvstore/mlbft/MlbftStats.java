package io.psmr.kvstore.mlbft;

/**
 * The counters of one MLBFT replica's execution stage. Every one but {@code queued} depends only on what the instances
 * ordered, so replicas that ran the same requests report the same values.
 *
 * @param deadlocks   deadlocks resolved (thesis §3.2.8.1): each moved one cross-border request to the head of its queues
 * @param resolutions a digest of the resolutions: per partition, the requests moved to its head, in order; equal on
 *                    replicas that resolved alike
 * @param crossBorder cross-border requests run (each once, on its exec partition's worker)
 * @param simple      requests of one partition run
 * @param queued      requests in the queues now
 * @param misrouted   requests an instance ordered that are not of its partition (refused, not run there)
 * @param repeated    requests an instance ordered twice (the second refused)
 * @param unreadable  ordered values that are not MLBFT requests (refused; nobody to answer)
 */
public record MlbftStats(long deadlocks, long resolutions, long crossBorder, long simple, long queued, long misrouted, long repeated,
                         long unreadable) {
}
