package io.psmr.ordering;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The in-process {@link AtomicBroadcast}: one JVM, any number of proposers and learners, one total
 * order decided by a lock. It is the embedded default of {@code ./psmr} and the ordering layer of
 * the tests.
 *
 * <h2>Order</h2>
 * {@link #propose} appends the value to a log under one lock; the append fixes its instance, so the
 * returned future is already complete when {@code propose} returns (it completes on the proposing
 * thread).
 *
 * <h2>Bounded memory: the retained window and flow control</h2>
 * The log is a ring of {@link Builder#retainedInstances(int) retainedInstances} slots (default
 * 256), holding the latest values: it is both the queue to the learners and the window from which a
 * new learner can start. Each value is at most {@link Builder#maxValueBytes(int) maxValueBytes}
 * (default 4 MiB), so the log holds at most {@code retainedInstances × maxValueBytes} bytes,
 * whatever the load. A slot is reused only once every learner has delivered the value in it; while
 * the slowest learner is {@code retainedInstances} instances behind, {@code propose} <b>blocks</b>
 * for up to {@link Builder#proposeTimeout(Duration) proposeTimeout} (default 10 s), then fails its
 * future with {@link OverloadedException} naming the learner that holds it back; the value is then
 * not ordered. A timeout of zero fails at once instead of blocking. A learner therefore never holds
 * more than the window, and a slow replica stalls only itself until it is a whole window behind.
 *
 * <h2>Learners</h2>
 * Each subscription gets its own daemon delivery thread, so learners never wait for each other.
 * It takes up to 64 values at a time under the lock and delivers them outside it. Subscribing from
 * an instance older than the window fails with {@link InstanceNotRetainedException}. At most
 * {@link Builder#maxLearners(int) maxLearners} (default 64) learners may be subscribed at once.
 *
 * <h2>Close</h2>
 * As {@link AtomicBroadcast#close()}: proposals are refused, waiting ones fail, learners stop
 * without draining, are interrupted and joined.
 */
public final class LocalSequencer implements AtomicBroadcast {

    private static final Logger LOG = LoggerFactory.getLogger(LocalSequencer.class);
    private static final int DELIVERY_CHUNK = 64;

    private enum State { NEW, RUNNING, CLOSED }

    private final int capacity;
    private final int maxValueBytes;
    private final long proposeTimeoutNanos;
    private final int maxLearners;
    private final String threadNamePrefix;
    private final long firstInstance;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a value is appended or the broadcast closes: learners wait on it. */
    private final Condition appended = lock.newCondition();
    /** Signalled when a learner advances, leaves, or the broadcast closes: proposers wait on it. */
    private final Condition room = lock.newCondition();
    /** Signalled when a learner advances or ends: {@link Subscription#awaitDelivered} waits on it. */
    private final Condition progress = lock.newCondition();

    // Guarded by lock.
    private final byte[][] ring;
    private long lastInstance;
    private State state = State.NEW;
    private final List<Learner> learners = new ArrayList<>();
    private long learnerIds;

    private LocalSequencer(Builder b) {
        this.capacity = b.retainedInstances;
        this.maxValueBytes = b.maxValueBytes;
        this.proposeTimeoutNanos = b.proposeTimeout.toNanos();
        this.maxLearners = b.maxLearners;
        this.threadNamePrefix = b.threadNamePrefix;
        this.firstInstance = b.firstInstance;
        this.lastInstance = firstInstance - 1;
        this.ring = new byte[capacity][];
    }

    /** A builder with the defaults described in the class comment. */
    public static Builder builder() {
        return new Builder();
    }

    /** The number of instances retained (and the flow-control window). */
    public int retainedInstances() {
        return capacity;
    }

    /** The largest value accepted, in bytes. */
    public int maxValueBytes() {
        return maxValueBytes;
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (state == State.CLOSED) {
                throw new IllegalStateException("sequencer is closed and cannot be started again");
            }
            state = State.RUNNING;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Blocks while the slowest learner is a whole window behind, for at most the propose
     * timeout; the returned future is always complete. If the calling thread is interrupted while
     * waiting, the future fails with an {@link InterruptedException} cause, the value is not ordered,
     * and the thread's interrupt flag is set again.
     */
    @Override
    public CompletableFuture<Long> propose(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("cannot propose a null value");
        }
        if (value.length > maxValueBytes) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the sequencer's maximum of "
                    + maxValueBytes + " bytes");
        }
        byte[] copy = value.clone();
        long instance;
        try {
            instance = append(copy);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(e);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.completedFuture(instance);
    }

    private long append(byte[] value) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long remaining = proposeTimeoutNanos;
            while (true) {
                if (state == State.NEW) {
                    throw new IllegalStateException("sequencer is not started: call start() before propose()");
                }
                if (state == State.CLOSED) {
                    throw new BroadcastClosedException("sequencer is closed; the value was not ordered");
                }
                long next = lastInstance + 1;
                Learner slowest = slowestLearner();
                if (slowest == null || slowest.next > next - capacity) {
                    ring[slot(next)] = value;
                    lastInstance = next;
                    appended.signalAll();
                    return next;
                }
                if (remaining <= 0) {
                    throw new OverloadedException("sequencer is full: learner " + slowest.name + " is at instance "
                            + slowest.next + ", " + (next - slowest.next) + " instances behind instance " + next
                            + ", and the retained window is " + capacity + " instances; waited "
                            + TimeUnit.NANOSECONDS.toMillis(proposeTimeoutNanos) + " ms; the value was not ordered");
                }
                remaining = room.awaitNanos(remaining);
            }
        } finally {
            lock.unlock();
        }
    }

    private Learner slowestLearner() {
        Learner slowest = null;
        for (Learner l : learners) {
            if (slowest == null || l.next < slowest.next) {
                slowest = l;
            }
        }
        return slowest;
    }

    private int slot(long instance) {
        return (int) (instance % capacity);
    }

    @Override
    public Subscription subscribe(long fromInstance, DeliveryListener listener) {
        Objects.requireNonNull(listener, "listener");
        Learner learner;
        lock.lock();
        try {
            if (state == State.CLOSED) {
                throw new BroadcastClosedException("sequencer is closed; cannot subscribe");
            }
            if (fromInstance < FIRST_INSTANCE) {
                throw new IllegalArgumentException("cannot subscribe from instance " + fromInstance
                        + ": instances start at " + FIRST_INSTANCE);
            }
            if (fromInstance > lastInstance + 1) {
                throw new IllegalArgumentException("cannot subscribe from instance " + fromInstance
                        + ": the next instance to be ordered is " + (lastInstance + 1));
            }
            long first = firstRetainedLocked();
            if (fromInstance < first) {
                throw new InstanceNotRetainedException(fromInstance, first);
            }
            if (learners.size() >= maxLearners) {
                throw new IllegalStateException("sequencer already has its maximum of " + maxLearners + " learners");
            }
            learner = new Learner(threadNamePrefix + "learner-" + (++learnerIds), fromInstance, listener);
            learners.add(learner);
        } finally {
            lock.unlock();
        }
        learner.thread.start();
        return learner;
    }

    @Override
    public long lastInstance() {
        lock.lock();
        try {
            return lastInstance;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long firstRetainedInstance() {
        lock.lock();
        try {
            return firstRetainedLocked();
        } finally {
            lock.unlock();
        }
    }

    private long firstRetainedLocked() {
        return Math.max(firstInstance, lastInstance - capacity + 1);
    }

    @Override
    public void close() {
        List<Learner> toStop;
        lock.lock();
        try {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
            toStop = new ArrayList<>(learners);
            for (Learner l : toStop) {
                l.stopRequested = true;
            }
            appended.signalAll();
            room.signalAll();
            progress.signalAll();
        } finally {
            lock.unlock();
        }
        for (Learner l : toStop) {
            l.stopAndJoin(true);
        }
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "LocalSequencer[" + state + ", last instance " + lastInstance + ", window " + capacity + ", "
                    + learners.size() + " learners]";
        } finally {
            lock.unlock();
        }
    }

    /** A subscription and its delivery thread. */
    private final class Learner implements Subscription, Runnable {

        private final String name;
        private final DeliveryListener listener;
        private final Thread thread;
        // Guarded by lock.
        private long next;
        /** Written under the lock; volatile so the delivery loop can stop between values without it. */
        private volatile boolean stopRequested;
        private boolean ended;
        private Throwable failure;

        Learner(String name, long from, DeliveryListener listener) {
            this.name = name;
            this.next = from;
            this.listener = listener;
            this.thread = new Thread(this, name);
            thread.setDaemon(true);
        }

        @Override
        public void run() {
            byte[][] chunk = new byte[DELIVERY_CHUNK][];
            Throwable error = null;
            try {
                while (true) {
                    long first;
                    int count;
                    lock.lockInterruptibly();
                    try {
                        while (next > lastInstance && !stopRequested) {
                            appended.await();
                        }
                        if (stopRequested) {
                            break;
                        }
                        first = next;
                        count = (int) Math.min(DELIVERY_CHUNK, lastInstance - next + 1);
                        for (int i = 0; i < count; i++) {
                            chunk[i] = ring[slot(first + i)];
                        }
                    } finally {
                        lock.unlock();
                    }
                    int delivered = 0;
                    try {
                        for (; delivered < count; delivered++) {
                            if (stopRequested) {
                                break;
                            }
                            listener.deliver(first + delivered, chunk[delivered]);
                            chunk[delivered] = null;
                        }
                    } finally {
                        advance(first + delivered);
                    }
                }
            } catch (InterruptedException e) {
                if (!stopRequested) {
                    error = e;
                    LOG.error("learner {} was interrupted outside close; its subscription ends", name, e);
                }
            } catch (Throwable t) {
                error = t;
                LOG.error("learner {} failed delivering a value; its subscription ends", name, t);
            } finally {
                finish(error);
            }
        }

        private void advance(long newNext) {
            lock.lock();
            try {
                next = newNext;
                room.signalAll();
                progress.signalAll();
            } finally {
                lock.unlock();
            }
        }

        private void finish(Throwable error) {
            lock.lock();
            try {
                ended = true;
                failure = error;
                learners.remove(this);
                room.signalAll();
                progress.signalAll();
            } finally {
                lock.unlock();
            }
            try {
                listener.closed(error);
            } catch (RuntimeException e) {
                LOG.error("listener of {} threw from closed()", name, e);
            }
        }

        @Override
        public long nextInstance() {
            lock.lock();
            try {
                return next;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public boolean isActive() {
            lock.lock();
            try {
                return !ended && !stopRequested;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public boolean awaitDelivered(long instance, long timeout, TimeUnit unit) throws InterruptedException {
            long remaining = unit.toNanos(timeout);
            lock.lockInterruptibly();
            try {
                while (next <= instance) {
                    if (ended || remaining <= 0) {
                        return false;
                    }
                    remaining = progress.awaitNanos(remaining);
                }
                return true;
            } finally {
                lock.unlock();
            }
        }

        @Override
        public Optional<Throwable> failure() {
            lock.lock();
            try {
                return Optional.ofNullable(failure);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void close() {
            lock.lock();
            try {
                stopRequested = true;
                appended.signalAll();
            } finally {
                lock.unlock();
            }
            stopAndJoin(false);
        }

        /** Wakes the thread (interrupting it if asked) and joins it, unless called from it. */
        void stopAndJoin(boolean interrupt) {
            if (Thread.currentThread() == thread) {
                return;
            }
            if (interrupt) {
                thread.interrupt();
            }
            boolean interrupted = false;
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return "Subscription[" + name + ", next " + nextInstance() + "]";
        }
    }

    /** Configures a {@link LocalSequencer}. Not thread-safe. */
    public static final class Builder {

        private int retainedInstances = 256;
        private int maxValueBytes = 4 << 20;
        private Duration proposeTimeout = Duration.ofSeconds(10);
        private int maxLearners = 64;
        private String threadNamePrefix = "psmr-sequencer-";
        private long firstInstance = FIRST_INSTANCE;

        private Builder() {
        }

        /** Size of the retained log window, and the flow-control bound, in instances; at least 1. */
        public Builder retainedInstances(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("retainedInstances must be at least 1, got " + n);
            }
            this.retainedInstances = n;
            return this;
        }

        /** Largest value accepted by {@code propose}, in bytes; at least 1. */
        public Builder maxValueBytes(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxValueBytes must be at least 1, got " + n);
            }
            this.maxValueBytes = n;
            return this;
        }

        /** How long {@code propose} waits for room before failing with {@link OverloadedException}; zero fails at once. */
        public Builder proposeTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("proposeTimeout must not be negative, got " + timeout);
            }
            this.proposeTimeout = timeout;
            return this;
        }

        /** Most learners subscribed at once; at least 1. */
        public Builder maxLearners(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxLearners must be at least 1, got " + n);
            }
            this.maxLearners = n;
            return this;
        }

        /** Prefix of delivery thread names (default {@code psmr-sequencer-}). */
        public Builder threadNamePrefix(String prefix) {
            this.threadNamePrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * The instance of the first value ordered (default {@link AtomicBroadcast#FIRST_INSTANCE}): a sequencer that
         * continues a numbering (a replica resuming after instance {@code n} passes {@code n + 1}). Instances below
         * it were never held here: subscribing from one fails with {@link InstanceNotRetainedException}.
         */
        public Builder firstInstance(long instance) {
            if (instance < FIRST_INSTANCE) {
                throw new IllegalArgumentException("firstInstance must be at least " + FIRST_INSTANCE + ", got " + instance);
            }
            this.firstInstance = instance;
            return this;
        }

        /** A new, idle sequencer; call {@link LocalSequencer#start()} before proposing. */
        public LocalSequencer build() {
            return new LocalSequencer(this);
        }
    }
}
