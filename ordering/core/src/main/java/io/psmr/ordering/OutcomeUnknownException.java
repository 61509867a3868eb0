package io.psmr.ordering;

/**
 * A proposal's outcome is not known: it was sent, and then the ordering client closed or its
 * request failed before it learned whether the value was ordered. The value may or may not be
 * delivered. Proposing it again is safe only if the layer above deduplicates (the key-value store
 * does, by client id and request sequence); reporting it as "not ordered" would be wrong.
 */
public final class OutcomeUnknownException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** An unknown outcome, with a message saying what happened. */
    public OutcomeUnknownException(String message) {
        super(message);
    }

    /** An unknown outcome caused by {@code cause}. */
    public OutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
