package io.psmr.ordering;

/**
 * A proposal was refused, and not ordered, because the broadcast had no room for it within the
 * configured wait: its slowest learner is as far behind as the retention bound allows. It is safe
 * to propose the value again later.
 */
public final class OverloadedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An overload with a message naming the limit and the learner holding it. */
    public OverloadedException(String message) {
        super(message);
    }
}
