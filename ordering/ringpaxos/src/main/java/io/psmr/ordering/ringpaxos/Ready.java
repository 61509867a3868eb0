package io.psmr.ordering.ringpaxos;

import java.util.List;

/**
 * What a node produced since it was last drained, as etcd raft's {@code Ready}: messages to send,
 * values delivered (learners) and proposals known to be ordered (proposers). The host sends the
 * messages and hands the rest to the application; for an acceptor it must first make
 * {@link AcceptorStorage} durable, because the messages may carry promises and votes.
 *
 * @param messages     messages to send, each to its {@link Message#to()}
 * @param deliveries   values delivered, in order (learners only; never no-ops, never a proposal twice)
 * @param acknowledged proposals this proposer now knows are decided
 * @param trimmedPast  0, or (once in a learner's life) the trim point of an acceptor that has discarded the
 *                     learner's next instance: the learner can never fetch it, has stopped, and its host must
 *                     install a checkpoint from another replica (state transfer)
 */
public record Ready(List<Message> messages, List<Delivery> deliveries, List<ProposalId> acknowledged, long trimmedPast) {

    /** Nothing to do. */
    public static final Ready EMPTY = new Ready(List.of(), List.of(), List.of(), 0);

    /** Copies the lists, so the batch is immutable. */
    public Ready {
        messages = List.copyOf(messages);
        deliveries = List.copyOf(deliveries);
        acknowledged = List.copyOf(acknowledged);
        if (trimmedPast < 0) {
            throw new IllegalArgumentException("trimmedPast must be non-negative: " + trimmedPast);
        }
    }

    /** A ready without a trimmed-past signal. */
    public Ready(List<Message> messages, List<Delivery> deliveries, List<ProposalId> acknowledged) {
        this(messages, deliveries, acknowledged, 0);
    }

    /** Whether it carries the learner's trimmed-past signal ({@link #trimmedPast()} above 0). */
    public boolean isTrimmedPast() {
        return trimmedPast > 0;
    }

    /** Whether there is nothing in it. */
    public boolean isEmpty() {
        return messages.isEmpty() && deliveries.isEmpty() && acknowledged.isEmpty() && trimmedPast == 0;
    }

    /**
     * One value delivered by a learner.
     *
     * @param instance the Paxos instance it was decided in (instances of no-ops and duplicates are skipped)
     * @param value    the value
     */
    public record Delivery(long instance, Value value) {
    }
}
