package io.psmr.ordering.ringpaxos;

/**
 * The unique identity of one proposal: its proposer and that proposer's sequence number. Retries of
 * a proposal keep its id, which is how learners deliver it at most once.
 *
 * @param proposer the proposer's node id, -1 only for {@link #NOOP}
 * @param seq      the proposer's sequence number, from 1
 */
public record ProposalId(int proposer, long seq) {

    /** The id of the no-op value a new coordinator writes into holes. */
    public static final ProposalId NOOP = new ProposalId(-1, 0);
}
