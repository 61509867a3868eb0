package io.psmr.ordering.ringpaxos;

/**
 * One change to an {@link AcceptorStorage}, as the acceptor asks its host to persist it in
 * {@link io.psmr.ordering.protocol.Ready#writes()}. Replaying the changes in order onto empty storage
 * ({@link AcceptorStorage#restore}) rebuilds the same state; {@link AcceptorStorage#asChanges()} gives the current
 * state as such changes, for compacting a log.
 */
public sealed interface StorageChange
        permits StorageChange.Promised, StorageChange.Voted, StorageChange.Decided, StorageChange.Trimmed {

    /**
     * The promised ballot rose to {@code ballot}.
     *
     * @param ballot the new promise
     */
    record Promised(Ballot ballot) implements StorageChange {
    }

    /**
     * A vote for {@code value} at {@code instance} in {@code ballot} (which also raises the promise to it).
     *
     * @param instance the instance
     * @param ballot   the ballot voted in
     * @param value    the value voted for
     */
    record Voted(long instance, Ballot ballot, Value value) implements StorageChange {
    }

    /**
     * {@code value} is known decided at {@code instance}.
     *
     * @param instance the instance
     * @param value    the decided value
     */
    record Decided(long instance, Value value) implements StorageChange {
    }

    /**
     * Every instance up to {@code upTo} is forgotten.
     *
     * @param upTo the new trim point
     */
    record Trimmed(long upTo) implements StorageChange {
    }
}
