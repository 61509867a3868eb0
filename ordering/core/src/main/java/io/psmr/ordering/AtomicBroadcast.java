package io.psmr.ordering;

import java.util.concurrent.CompletableFuture;

/**
 * Atomic broadcast (total-order broadcast): the ordering layer of a replicated service. Proposers
 * hand it opaque values; it gives every value one <em>instance</em> number in a single total order,
 * and every learner receives the values in that order, each exactly once, without gaps.
 *
 * <p>This is the service provider interface behind which psmr places its ordering protocols: the
 * in-process {@link LocalSequencer} now, Ring Paxos, PBFT and adapters to existing SMR stacks later.
 * Everything above it (the replica, the client proxy) talks only to this interface.
 *
 * <h2>Instances</h2>
 * Instances start at {@link #FIRST_INSTANCE} (1) and increase by exactly one per ordered value.
 * An implementation whose protocol has no-op instances must renumber or deliver them so that
 * learners still see a gap-free sequence; learners may rely on {@code instance == previous + 1}.
 *
 * <h2>Lifecycle</h2>
 * A new instance is idle: learners may {@link #subscribe} before {@link #start()}, so that none
 * misses the first value, but {@link #propose} fails until {@code start()} is called.
 * {@link #close()} ends it for good (see its contract). Both are idempotent.
 *
 * <h2>Proposals</h2>
 * {@link #propose} returns a future that completes with the value's instance once the value is
 * ordered: from then on every current learner will deliver it at that instance (unless it
 * unsubscribes or the broadcast closes first). The future fails, and the value is <em>not</em>
 * ordered, when the broadcast is overloaded beyond its configured patience ({@link OverloadedException}),
 * closed ({@link BroadcastClosedException}), or not started ({@link IllegalStateException}).
 * A proposal whose future failed was never ordered and will never be delivered, so it is safe to
 * propose it again; a proposal whose future completed must not be proposed again unless the
 * layer above deduplicates (the kvstore does, by client id and request sequence).
 * The future may complete on the proposing thread or on a thread of the implementation:
 * dependent stages must not block.
 *
 * <h2>Delivery</h2>
 * Each {@link Subscription} has its own delivery thread, owned by the implementation. Its
 * {@link DeliveryListener#deliver} is called on that thread only, one value at a time, in strictly
 * increasing, gap-free instance order starting from the instance it subscribed from. A slow
 * learner delays only itself, up to the implementation's bounded retention; beyond it, proposers
 * are held back (flow control) rather than memory growing.
 *
 * <h2>Thread safety</h2>
 * All methods may be called from any thread, concurrently.
 */
public interface AtomicBroadcast extends OrderingClient {

    /** The instance of the first value ever ordered. */
    long FIRST_INSTANCE = 1;

    /**
     * Opens the broadcast for proposals. Idempotent while open.
     *
     * @throws IllegalStateException if the broadcast is closed
     */
    @Override
    void start();

    /**
     * Proposes a value for ordering. The broadcast keeps its own copy: the caller may reuse the
     * array once this method returns.
     *
     * @param value the value, not null, at most the implementation's maximum value size
     * @return a future that completes with the value's instance (never {@link #UNKNOWN_INSTANCE})
     *         once it is ordered, or fails as described in the class comment
     * @throws IllegalArgumentException if {@code value} is null or larger than the maximum value size
     */
    @Override
    CompletableFuture<Long> propose(byte[] value);

    /**
     * Adds a learner that will receive every value from instance {@code fromInstance} on, in order,
     * on a delivery thread of its own.
     *
     * @param fromInstance the first instance to deliver: at least {@link #firstRetainedInstance()}
     *                     and at most {@link #lastInstance()} + 1 (the next value to be ordered)
     * @param listener     receives the values
     * @return the subscription, active at once
     * @throws InstanceNotRetainedException if {@code fromInstance} is older than the oldest retained instance
     * @throws IllegalArgumentException     if {@code fromInstance} is below {@link #FIRST_INSTANCE} or
     *                                      beyond the next instance, or {@code listener} is null
     * @throws IllegalStateException        if the broadcast is closed or has its maximum number of learners
     */
    Subscription subscribe(long fromInstance, DeliveryListener listener);

    /** The highest instance ordered so far, or 0 if none. */
    long lastInstance();

    /** The oldest instance a new learner can still subscribe from ({@link #FIRST_INSTANCE} until values are discarded). */
    long firstRetainedInstance();

    /**
     * Closes the broadcast. Afterwards:
     * <ul>
     *   <li>new proposals fail with {@link BroadcastClosedException};</li>
     *   <li>proposals waiting for room fail with {@link BroadcastClosedException} and were not ordered;</li>
     *   <li>proposals already ordered stay ordered, but learners are <em>not</em> drained: each learner
     *       stops after the value it is delivering, and values it has not reached are not delivered
     *       (wait with {@link Subscription#awaitDelivered} first if you need them delivered);</li>
     *   <li>each listener's {@link DeliveryListener#closed} is called on its delivery thread;</li>
     *   <li>delivery threads are interrupted (so a listener blocked on its own back-pressure returns) and
     *       joined, except the caller's own thread when a listener closes the broadcast.</li>
     * </ul>
     * Idempotent.
     */
    @Override
    void close();
}
