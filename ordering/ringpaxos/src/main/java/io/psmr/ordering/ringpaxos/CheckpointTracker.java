package io.psmr.ordering.ringpaxos;

/**
 * Follows a learner's deliveries one by one, so that a host can take the {@link LearnerCheckpoint} as of any single
 * delivery, even though the learner itself delivers in batches (one {@link io.psmr.ordering.protocol.Ready} may hold many deliveries, and the
 * learner's own state is then already past all of them).
 *
 * <p>Why it is exact: a learner's duplicate filter changes only when it delivers (skipped duplicates and no-ops leave
 * it as it is), so feeding the delivered values, in order, to a copy of the filter that started from the same state
 * gives the learner's filter as of each delivery. The checkpoint after delivery {@code d} says "delivered through
 * {@code d.instance()}"; a learner resumed from it delivers from {@code d.instance() + 1} and skips again whatever
 * no-ops and duplicates lie there.
 *
 * <p>Not thread-safe: one thread (the one that receives the learner's deliveries).
 */
public final class CheckpointTracker {

    private final ProposalDeduplicator dedup;
    private long deliveredThrough;

    /**
     * Starts where a learner starts.
     *
     * @param config the cluster (for the proposer window)
     * @param start  the state the learner was built from ({@link LearnerCheckpoint#INITIAL} for a fresh one)
     */
    public CheckpointTracker(RingPaxosConfig config, LearnerCheckpoint start) {
        this.dedup = new ProposalDeduplicator(config.proposerWindow(), start.proposers());
        this.deliveredThrough = start.deliveredThrough();
    }

    /**
     * Records the learner's next delivery. Deliveries must come in the order the learner made them, each once.
     *
     * @throws IllegalArgumentException if the delivery is not after the previous one, or repeats a proposal (then it
     *                                  did not come from the learner this tracker follows)
     */
    public void delivered(Output.Delivery d) {
        if (d.instance() <= deliveredThrough) {
            throw new IllegalArgumentException("delivery at instance " + d.instance() + " is not after instance "
                    + deliveredThrough);
        }
        if (!dedup.firstDelivery(d.value().id())) {
            throw new IllegalArgumentException("delivery at instance " + d.instance() + " repeats proposal " + d.value().id());
        }
        deliveredThrough = d.instance();
    }

    /** The learner's state as of the last delivery recorded. */
    public LearnerCheckpoint checkpoint() {
        return new LearnerCheckpoint(deliveredThrough, dedup.snapshot());
    }
}
