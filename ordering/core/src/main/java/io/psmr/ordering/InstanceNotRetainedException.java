package io.psmr.ordering;

/**
 * A learner asked to subscribe from an instance the broadcast no longer retains: it would miss
 * values, so it is refused. The learner must recover state another way (for example from a
 * snapshot of another replica) and subscribe from a retained instance.
 */
public final class InstanceNotRetainedException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final long requested;
    private final long firstRetained;

    /**
     * @param requested     the instance asked for
     * @param firstRetained the oldest instance still retained
     */
    public InstanceNotRetainedException(long requested, long firstRetained) {
        super("cannot subscribe from instance " + requested + ": it is no longer retained; the oldest retained instance is "
                + firstRetained);
        this.requested = requested;
        this.firstRetained = firstRetained;
    }

    /** The instance asked for. */
    public long requested() {
        return requested;
    }

    /** The oldest instance still retained when the subscription was refused. */
    public long firstRetained() {
        return firstRetained;
    }
}
