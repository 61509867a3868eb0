package io.psmr.ordering;

/**
 * Receives the values of an {@link AtomicBroadcast} in total order.
 *
 * <p><b>Threads.</b> Both methods are called only on the subscription's delivery thread, never
 * concurrently with each other. Different subscriptions have different threads.
 */
public interface DeliveryListener {

    /**
     * The value ordered at {@code instance}. Instances arrive strictly increasing and gap-free,
     * starting at the instance subscribed from.
     *
     * <p>The array may be shared with other learners: it must not be modified. The listener may
     * block (for example on its own back-pressure); while it does, its learner falls behind and,
     * past the broadcast's retention bound, holds back proposers.
     *
     * @throws Exception to end the subscription: no further value is delivered to this listener,
     *                   and {@link #closed} receives the exception
     */
    void deliver(long instance, byte[] value) throws Exception;

    /**
     * The subscription has ended: closed (by {@link Subscription#close()} or by closing the
     * broadcast), in which case {@code failure} is null, or because {@link #deliver} threw
     * {@code failure}. Called once, last.
     */
    default void closed(Throwable failure) {
    }
}
