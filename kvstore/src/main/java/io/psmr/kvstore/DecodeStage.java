package io.psmr.kvstore;

import io.psmr.ordering.DeliveryListener;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A bounded, ordered two-thread pipeline in front of a replica's admission: the subscription's
 * thread decodes each delivered value, and this stage's own thread (the replica's <i>delivery
 * thread</i>) handles the decoded values strictly in instance order. While the delivery thread admits
 * and schedules value k, the subscription's thread already decodes and verifies k+1, k+2, …, up to
 * {@code bound} values ahead.
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li><b>The subscription's thread</b> (the broadcast's, through {@link #deliver}): runs the
 *       {@link Decoder} on the value, then queues the outcome. It blocks while {@code bound} outcomes
 *       wait, so the learner falls behind and the broadcast holds proposers back, as when delivery
 *       itself blocks. A decoder that throws does not stop it: the exception is queued in the value's
 *       place and fails the stage when its turn comes, after every value before it.</li>
 *   <li><b>The delivery thread</b> ({@code threadName}, owned by this stage): takes the outcomes in
 *       the order they were queued, which is delivery order, and runs the {@link Handler} on each, one
 *       at a time. It is the one thread that admits and schedules.</li>
 *   <li>The other methods: any thread.</li>
 * </ul>
 * Decoding must be a pure function of the value (and the replicated configuration), so moving it to
 * another thread changes no verdict: a value that decodes to a refusal is refused at its turn, in
 * order, the same way on every replica.
 *
 * <h2>Failures and closing</h2>
 * If the handler throws (or a queued decoder exception comes up), the delivery thread stops: the
 * values queued after it are dropped, {@link #failure()} reports the exception, and the next
 * {@link #deliver} throws it, which ends the subscription. {@link #stopIntake()} makes {@link #deliver}
 * return at once without queuing (a value not queued is not delivered to the replica, like one the
 * broadcast had not delivered yet); {@link #close} then lets the delivery thread handle every value
 * already queued and joins it. A close that waits longer than its timeout interrupts the handler.
 *
 * @param <T> the decoded form of a value
 */
public final class DecodeStage<T> implements DeliveryListener {

    /** Decodes a delivered value; runs on the subscription's thread. Must depend only on the value. */
    @FunctionalInterface
    public interface Decoder<T> {
        T decode(long instance, byte[] value);
    }

    /** Handles a decoded value; runs on the delivery thread, in instance order. */
    @FunctionalInterface
    public interface Handler<T> {
        void handle(long instance, T decoded) throws Exception;
    }

    /** How often a blocked {@link #deliver} looks for a failure or a close. */
    private static final long POLL_MILLIS = 20;

    private record Item<T>(long instance, T decoded, RuntimeException decodeFailure, boolean end) {
    }

    private final BlockingQueue<Item<T>> queue;
    private final Decoder<T> decoder;
    private final Handler<T> handler;
    private final Thread thread;
    private final Object progress = new Object();
    private volatile long lastHandled;
    private volatile Throwable failure;
    private volatile boolean intakeStopped;
    private volatile boolean finished;

    /**
     * A stage whose delivery thread is named {@code threadName}; call {@link #start()}.
     *
     * @param bound       most decoded values waiting for the delivery thread (at least 1)
     * @param lastHandled the instance before the first one that will be delivered
     */
    public DecodeStage(String threadName, int bound, long lastHandled, Decoder<T> decoder, Handler<T> handler) {
        if (bound < 1) {
            throw new IllegalArgumentException("the decode stage's bound must be at least 1, got " + bound);
        }
        this.queue = new ArrayBlockingQueue<>(bound);
        this.decoder = Objects.requireNonNull(decoder, "decoder");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.lastHandled = lastHandled;
        this.thread = new Thread(this::run, Objects.requireNonNull(threadName, "threadName"));
        this.thread.setDaemon(true);
    }

    /** Starts the delivery thread. */
    public DecodeStage<T> start() {
        thread.start();
        return this;
    }

    /** Subscription's thread: decodes {@code value} and queues it, blocking while the queue is full. */
    @Override
    public void deliver(long instance, byte[] value) throws Exception {
        throwIfFailed();
        if (intakeStopped) {
            return;
        }
        Item<T> item;
        try {
            item = new Item<>(instance, decoder.decode(instance, value), null, false);
        } catch (RuntimeException e) {
            item = new Item<>(instance, null, e, false); // fails the stage at its turn, after the values before it
        }
        while (!queue.offer(item, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            throwIfFailed();
            if (intakeStopped || finished) {
                return;
            }
        }
    }

    private void throwIfFailed() throws Exception {
        Throwable f = failure;
        if (f instanceof Exception e) {
            throw e;
        } else if (f instanceof Error e) {
            throw e;
        } else if (f != null) {
            throw new IllegalStateException(f);
        }
    }

    private void run() {
        try {
            while (true) {
                Item<T> item = queue.take();
                if (item.end()) {
                    return;
                }
                if (item.decodeFailure() != null) {
                    throw item.decodeFailure();
                }
                handler.handle(item.instance(), item.decoded());
                synchronized (progress) {
                    lastHandled = item.instance();
                    progress.notifyAll();
                }
            }
        } catch (Throwable t) {
            failure = t;
            queue.clear(); // what follows a failure is never handled; free it and unblock the subscription's thread
        } finally {
            synchronized (progress) {
                finished = true;
                progress.notifyAll();
            }
        }
    }

    /** The last instance the delivery thread has handled (or the one before the first). */
    public long lastHandled() {
        return lastHandled;
    }

    /** Decoded values waiting for the delivery thread. */
    public int queued() {
        return queue.size();
    }

    /**
     * Waits until the delivery thread has handled {@code instance}.
     *
     * @return false on timeout, or if the delivery thread stopped (failed or closed) before it
     */
    public boolean awaitHandled(long instance, long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        synchronized (progress) {
            while (lastHandled < instance) {
                long left = deadline - System.nanoTime();
                if (finished || left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(progress, left);
            }
            return true;
        }
    }

    /** What stopped the delivery thread, if the handler (or a decoder) threw. */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /** From now on {@link #deliver} queues nothing and returns at once (also when blocked on a full queue). */
    public void stopIntake() {
        intakeStopped = true;
    }

    /**
     * Stops intake, lets the delivery thread handle every value already queued, and joins it; if that
     * takes longer than {@code timeout}, interrupts it and joins again. Idempotent.
     *
     * @return true if every queued value was handled (false if the thread failed or was interrupted)
     */
    public boolean close(long timeout, TimeUnit unit) {
        stopIntake();
        if (thread.getState() == Thread.State.NEW) {
            finished = true;
            return queue.isEmpty();
        }
        boolean interrupted = false;
        try {
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            Item<T> end = new Item<>(Long.MAX_VALUE, null, null, true);
            while (!finished && !queue.offer(end, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                if (System.nanoTime() > deadline) {
                    break;
                }
            }
            if (Thread.currentThread() != thread) {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                if (thread.isAlive()) {
                    thread.interrupt();
                    thread.join();
                }
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return failure == null && queue.isEmpty();
    }
}
