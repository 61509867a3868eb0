package io.psmr.ordering.ringpaxos;

import io.psmr.ordering.protocol.ProtocolCore;

/**
 * A Ring Paxos node's {@link ProtocolCore}: an {@link AcceptorNode}, a {@link Learner} or a {@link Proposer}. It
 * exchanges {@link Message}s, asks its host to persist {@link StorageChange}s (acceptors only) and hands it
 * {@link Output}s (learners and proposers).
 *
 * <p>Not thread-safe: the host calls it from one thread.
 */
public interface RingPaxosCore extends ProtocolCore<Message, StorageChange, Output> {

    /** This node's id, unique in the cluster. */
    int id();
}
