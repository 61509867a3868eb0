package io.psmr.proxy;

/**
 * A snapshot of a {@link ClientProxy}'s counters (totals since start, except the last two).
 *
 * @param batches        new batches proposed (retries not counted)
 * @param commands       client commands in them (commands a {@link BatchDecorator} added not counted)
 * @param retries        batches proposed again (after a timeout or an overload)
 * @param timedOut       batches given up after the last retry
 * @param replies        replies received, from every replica
 * @param staleReplies   replies for no outstanding batch (later replicas' replies after the first completed the batch, late retries)
 * @param rejected       submissions refused because the queue was full (REJECT policy)
 * @param tooLarge       commands answered TOO_LARGE by the proxy itself, without proposing
 * @param addedCommands  commands the proxy's {@link BatchDecorator} added to new batches
 * @param duplicateReplies      under {@link ReplyTrust#matching MATCHING}: replies that added no answer because their
 *                              replica had already answered every command they answer (retries, duplicated
 *                              deliveries, a replica repeating itself); 0 under FIRST_REPLY, which keeps no per-replica state
 * @param mismatchingReplies    under MATCHING: replies whose result, for some command they answer, differs from the
 *                              result accepted for it, or that belong to a command failed with
 *                              {@link ReplyMismatchException} (all its replies count); replies arriving after their
 *                              batch finished are stale, not compared; 0 under FIRST_REPLY
 * @param unknownReplicaReplies under MATCHING: replies from a replica id outside the configured replica set, ignored;
 *                              0 under FIRST_REPLY
 * @param queued         commands waiting to be batched now
 * @param outstanding    batches proposed and not fully answered now
 * @param finished       batches whose every command was answered (or failed: timed out, closed)
 * @param proposalNanos  the time from building each finished batch (just before its first proposal) to its last
 *                       answer, summed over the finished batches: retries included
 */
public record ProxyStats(long batches, long commands, long retries, long timedOut, long replies, long staleReplies,
                         long rejected, long tooLarge, long addedCommands, long duplicateReplies, long mismatchingReplies,
                         long unknownReplicaReplies, int queued, int outstanding, long finished, long proposalNanos) {

    /** Counters without the proposal latency (0 finished batches). */
    public ProxyStats(long batches, long commands, long retries, long timedOut, long replies, long staleReplies,
                      long rejected, long tooLarge, long addedCommands, long duplicateReplies, long mismatchingReplies,
                      long unknownReplicaReplies, int queued, int outstanding) {
        this(batches, commands, retries, timedOut, replies, staleReplies, rejected, tooLarge, addedCommands,
                duplicateReplies, mismatchingReplies, unknownReplicaReplies, queued, outstanding, 0, 0);
    }

    /** Mean client commands per batch, or 0 before the first batch. */
    public double meanBatchSize() {
        return batches == 0 ? 0 : (double) commands / batches;
    }
}
