package io.psmr.ordering;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One learner of an {@link AtomicBroadcast}: a listener and the delivery thread that feeds it.
 *
 * <p>All methods may be called from any thread.
 */
public interface Subscription extends AutoCloseable {

    /** The next instance this learner will deliver; everything before it has been delivered. */
    long nextInstance();

    /** Whether the learner is still delivering: neither closed nor failed. */
    boolean isActive();

    /**
     * Waits until the listener has returned from delivering {@code instance}.
     *
     * @return true once it has; false if the timeout elapsed, or the subscription ended before
     *         reaching it (see {@link #failure()})
     */
    boolean awaitDelivered(long instance, long timeout, TimeUnit unit) throws InterruptedException;

    /** The exception that ended the subscription, if its listener threw one. */
    Optional<Throwable> failure();

    /**
     * Ends this subscription: the learner stops after the value it is delivering, stops holding
     * back proposers, and its listener's {@link DeliveryListener#closed} is called with null. Joins
     * the delivery thread unless called from it. Idempotent.
     */
    @Override
    void close();
}
