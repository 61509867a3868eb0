package io.psmr.bench.e2e;

import io.psmr.ordering.DeliveryListener;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A learner of its own beside the replica's, on the same adapter, that stamps with
 * {@link System#nanoTime} the first <em>new</em> decision after a coordinator was killed: the first
 * value delivered beyond the instance ordered before the kill and no earlier than a given time.
 *
 * <p>Why the time: when the coordinator dies, the {@code Accept}s it had already sent along the
 * ring are still decided by the survivors and delivered within a millisecond or so. Those are the
 * dead coordinator's decisions, not the failover's. No new coordinator can decide anything before a
 * survivor suspects the old one, so deliveries before that earliest possible takeover are counted
 * as the dead coordinator's tail ({@link #drained()}) and the stamp is the first delivery after it.
 *
 * <p><b>Limitation: the cut-off is a time, not a ballot.</b> The probe sees an instance and its
 * value, not the ballot it was decided under, and nothing in a value says which coordinator launched
 * it; the dead coordinator's highest launched instance is not exposed by {@code LoopbackRingPaxos}
 * either. So the tail is told from the failover by time alone. On a loaded machine (the 2 shared
 * cores, with the clients, proxy and replica competing for them) a decision of the dead
 * coordinator can be delivered later than the cut-off; the probe then stamps it as the first new
 * decision and <em>kill → first new decision</em> comes out too short, by up to the whole takeover.
 * A stamp more than a tick before <em>kill → new coordinator</em> is such a case for certain (a new
 * coordinator decides nothing before its Phase 1, and that is seen at most a tick late); a stamp
 * after it may still be one. Telling them apart exactly needs the ballot of each delivered
 * decision, which the {@link DeliveryListener} SPI does not carry.
 *
 * <p>A subscription of its own, rather than polling {@code lastInstance()}, gives the stamp without
 * a polling period and leaves the replica's subscription alone; it costs a comparison per delivery,
 * so it never holds proposers back.
 *
 * <p><b>Threads.</b> {@link #deliver} runs on the subscription's delivery thread; {@link #arm} is
 * called once, from any thread; {@link #awaitFirst} from any thread, and the getters only after it
 * returned true (the latch orders the delivery thread's writes before them).
 */
final class FailoverProbe implements DeliveryListener {

    /** Not armed: no instance is above it. */
    private static final long UNARMED = Long.MAX_VALUE;

    private final CountDownLatch first = new CountDownLatch(1);
    private volatile long notBeforeNanos;
    // Written after notBeforeNanos and read before it: reading it armed means notBeforeNanos is set.
    private volatile long after = UNARMED;
    // delivery thread only until first.countDown(); read after first.await()
    private long firstInstance;
    private long firstNanos;
    private long drained;

    /**
     * Stamps the first value delivered beyond {@code instance} at or after {@code notBeforeNanos}
     * ({@link System#nanoTime}); values beyond {@code instance} delivered before it are counted as drained. Once.
     */
    void arm(long instance, long notBeforeNanos) {
        if (after != UNARMED) {
            throw new IllegalStateException("the probe is already armed at instance " + after);
        }
        this.notBeforeNanos = notBeforeNanos;
        after = instance;
    }

    @Override
    public void deliver(long instance, byte[] value) {
        if (instance <= after || first.getCount() == 0) {
            return;
        }
        long now = System.nanoTime();
        if (now - notBeforeNanos < 0) {
            drained++;
            return;
        }
        firstNanos = now;
        firstInstance = instance;
        first.countDown();
    }

    /** Waits for the first new decision; false on timeout. */
    boolean awaitFirst(long timeout, TimeUnit unit) throws InterruptedException {
        return first.await(timeout, unit);
    }

    /** The instance of the first new decision. */
    long firstInstance() {
        return firstInstance;
    }

    /** When it was delivered to this probe ({@link System#nanoTime}). */
    long firstNanos() {
        return firstNanos;
    }

    /** Values delivered beyond the armed instance before the not-before time: the dead coordinator's tail. */
    long drained() {
        return drained;
    }
}
