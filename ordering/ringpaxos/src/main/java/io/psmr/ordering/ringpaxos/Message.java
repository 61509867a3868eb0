package io.psmr.ordering.ringpaxos;

import java.util.List;

/**
 * Every message of the protocol. Each names its sender and its one receiver: the core only ever
 * unicasts, so a transport needs nothing but point-to-point links. Messages may be lost, duplicated,
 * delayed and reordered; the core tolerates all of it (safety never depends on delivery).
 */
public sealed interface Message {

    /** The sending node's id. */
    int from();

    /** The receiving node's id. */
    int to();

    /**
     * Proposer → acceptor: order this value. An acceptor that is not the coordinator forwards it
     * once to the acceptor it believes coordinates.
     *
     * @param forwarded whether an acceptor already forwarded it (it is then never forwarded again,
     *                  so a disagreement about who coordinates cannot bounce it forever)
     */
    record Propose(int from, int to, Value value, boolean forwarded) implements Message {
    }

    /**
     * Phase 1a, coordinator → acceptor: promise {@code ballot} for every instance from
     * {@code fromInstance} on, and report your votes there. One Prepare covers all later
     * instances, which is Phase 1 run ahead of time for every instance the coordinator will use.
     */
    record Prepare(int from, int to, Ballot ballot, long fromInstance) implements Message {
    }

    /**
     * Phase 1b, acceptor → coordinator: the promise, with the acceptor's votes from the Prepare's
     * {@code fromInstance} on and the instance up to which it has trimmed its log.
     */
    record Promise(int from, int to, Ballot ballot, long trimmedTo, List<Vote> votes) implements Message {
        /** Copies the vote list, so the message is immutable. */
        public Promise {
            votes = List.copyOf(votes);
        }
    }

    /**
     * Phase 2 along the ring: vote for {@code value} at {@code instance} in {@code ballot}. The
     * receiver is {@code ring.get(position)}; it votes and forwards to the next ring member, and the
     * last member, knowing every member before it voted, decides.
     */
    record Accept(int from, int to, Ballot ballot, long instance, Value value, List<Integer> ring, int position)
            implements Message {
        /** Copies the ring, so the message is immutable. */
        public Accept {
            ring = List.copyOf(ring);
        }
    }

    /** Acceptor → coordinator: your ballot is below what I promised; it carries that promise. */
    record Reject(int from, int to, Ballot promised) implements Message {
    }

    /**
     * A decision: {@code value} is chosen at {@code instance}. Sent by the last ring member to every
     * acceptor, learner and the value's proposer, and by acceptors answering a {@link Fetch}.
     *
     * @param ballot a ballot of the current coordinator as the sender knows it; proposers take it as
     *               the hint where to send proposals
     */
    record Decision(int from, int to, long instance, Value value, Ballot ballot) implements Message {
    }

    /**
     * Acceptor → acceptors and learners, every few ticks. Liveness only: failure detection, the
     * highest decided instance (so learners notice a gap at the tail), and trimming progress.
     */
    record Heartbeat(int from, int to, Ballot promised, long highestDecided, long trimmedTo) implements Message {
    }

    /** Learner → acceptor: send me the decisions of instances {@code fromInstance..toInstance}, inclusive. */
    record Fetch(int from, int to, long fromInstance, long toInstance) implements Message {
    }

    /**
     * Learner → acceptor: I have delivered everything up to {@code upTo}: my safe instance. Once
     * every learner reported past an instance, acceptors may forget it.
     */
    record Delivered(int from, int to, long upTo) implements Message {
    }
}
