package io.psmr.bench.e2e;

/**
 * The summary of the Ring Paxos failover trials of one {@code psmr bench e2e} invocation (see
 * {@link E2eFailover}), with the protocol timeouts that bound them.
 *
 * @param trials                 trials run
 * @param killToDecisionMs       median time from closing the coordinator to the first new decision: the first
 *                               instance delivered beyond the last one ordered before the close, and not before
 *                               {@code earliestTakeoverMs}, milliseconds
 * @param killToDecisionMinMs    the fastest trial
 * @param killToDecisionMaxMs    the slowest trial
 * @param killToCoordinatorMs    median time from closing the coordinator to the next one seen as sole coordinator
 *                               (signalled at a tick, so up to one tick late), milliseconds
 * @param killToCoordinatorMinMs the fastest trial
 * @param killToCoordinatorMaxMs the slowest trial
 * @param drained                median of the decisions of the killed coordinator (already sent along the ring)
 *                               delivered after the kill, before {@code earliestTakeoverMs}
 * @param tickMs                 wall-clock length of a protocol tick
 * @param heartbeatTicks         ticks between an acceptor's heartbeats
 * @param suspectTicks           ticks of silence before an acceptor is suspected
 * @param proposerRetryTicks     ticks before a proposer resends an undecided proposal
 * @param earliestTakeoverMs     the earliest a new coordinator can decide after the kill (see
 *                               {@link E2eFailover#earliestTakeover}); decisions before it are the old coordinator's
 */
public record E2eFailoverResult(int trials, double killToDecisionMs, double killToDecisionMinMs, double killToDecisionMaxMs,
                                double killToCoordinatorMs, double killToCoordinatorMinMs, double killToCoordinatorMaxMs,
                                double drained, long tickMs, int heartbeatTicks, int suspectTicks, int proposerRetryTicks,
                                long earliestTakeoverMs) {

    /** The suspect timeout in milliseconds. */
    public long suspectMs() {
        return tickMs * suspectTicks;
    }
}
