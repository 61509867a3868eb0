package io.psmr.ordering;

/** The broadcast was closed before a proposal could be ordered; the value was not ordered. */
public final class BroadcastClosedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** A closed-broadcast failure with a message saying what was refused. */
    public BroadcastClosedException(String message) {
        super(message);
    }
}
