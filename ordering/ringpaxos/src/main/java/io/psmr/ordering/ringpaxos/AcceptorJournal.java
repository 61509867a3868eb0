package io.psmr.ordering.ringpaxos;

/**
 * Receives every change to an {@link AcceptorStorage}, in the order they happen: the hook through
 * which a host makes the storage durable without putting I/O into the protocol core.
 *
 * <p>The storage calls it synchronously, on the thread that changes the storage (the core's
 * thread), and only for changes that alter its state: a promise that raises the promised ballot, a
 * vote, a decision not already known with that value, a trim that moves the trim point. Replaying
 * the calls in order onto empty storage ({@link AcceptorStorage#restorer()}) rebuilds the same
 * state. The host must make every change it received durable before it sends the messages of the
 * {@link Ready} that follows them (they may carry the promise or the vote). A journal must not
 * call back into the storage or the node.
 */
public interface AcceptorJournal {

    /** A journal that records nothing: in-memory storage. */
    AcceptorJournal NONE = new AcceptorJournal() {
        @Override
        public void promised(Ballot ballot) {
        }

        @Override
        public void voted(long instance, Ballot ballot, Value value) {
        }

        @Override
        public void decided(long instance, Value value) {
        }

        @Override
        public void trimmed(long upTo) {
        }
    };

    /** The promised ballot rose to {@code ballot}. */
    void promised(Ballot ballot);

    /** A vote for {@code value} at {@code instance} in {@code ballot} (which also raises the promise to it). */
    void voted(long instance, Ballot ballot, Value value);

    /** {@code value} is known decided at {@code instance}. */
    void decided(long instance, Value value);

    /** Every instance up to {@code upTo} is forgotten. */
    void trimmed(long upTo);
}
