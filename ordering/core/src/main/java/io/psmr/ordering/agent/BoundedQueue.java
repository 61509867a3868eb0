package io.psmr.ordering.agent;

import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.function.Consumer;

/**
 * The only channel between {@link Agent}s: a bounded multi-producer queue with one consumer agent. {@link #offer}
 * never blocks and fails when the queue is full: the sender keeps the element and retries on a later duty cycle
 * (backpressure); the queue never grows past its capacity.
 *
 * <p>Thread safety: {@link #offer} from any thread; {@link #poll} and {@link #drain} from the consumer's thread only
 * (the queue itself is safe for more, but the element order a consumer sees is only meaningful with one). A queue
 * that its consumer agent lists in {@link Agent#inboxes()} is bound to the {@link Doorbell} of the runner
 * that runs it, and every successful {@code offer} rings that bell.
 *
 * @param <E> the element type
 */
public final class BoundedQueue<E> {

    private final String name;
    private final int capacity;
    private final ArrayBlockingQueue<E> queue;
    private volatile Doorbell consumer;

    /**
     * @param name     for error messages (for example {@code replica-1/pillar-0 inbox})
     * @param capacity the most elements held at once; at least 1
     */
    public BoundedQueue(String name, int capacity) {
        this.name = Objects.requireNonNull(name, "name");
        if (capacity < 1) {
            throw new IllegalArgumentException("queue " + name + ": capacity must be at least 1, got " + capacity);
        }
        this.capacity = capacity;
        this.queue = new ArrayBlockingQueue<>(capacity);
    }

    /** Adds {@code e} unless the queue is full. @return false if full (nothing was added) */
    public boolean offer(E e) {
        if (!queue.offer(Objects.requireNonNull(e, "element"))) {
            return false;
        }
        Doorbell bell = consumer;
        if (bell != null) {
            bell.ring();
        }
        return true;
    }

    /**
     * Rings {@code bell} on every element added from now on: the consumer's runner may then leave it idle until one
     * comes. Called by the {@link AgentRunner} or {@link LoopAgentRunner} that runs the consumer; a later call
     * replaces the bell (a consumer restarted on a new runner takes over its queues).
     */
    void wakes(Doorbell bell) {
        consumer = Objects.requireNonNull(bell, "bell");
    }

    /** The oldest element, removed, or null if empty. */
    public E poll() {
        return queue.poll();
    }

    /** The oldest element, not removed, or null if empty. */
    public E peek() {
        return queue.peek();
    }

    /**
     * Hands up to {@code limit} elements, oldest first, to {@code sink}.
     *
     * @return how many were handed over
     */
    public int drain(Consumer<? super E> sink, int limit) {
        int n = 0;
        E e;
        while (n < limit && (e = queue.poll()) != null) {
            sink.accept(e);
            n++;
        }
        return n;
    }

    /** Elements held now (a snapshot). */
    public int size() {
        return queue.size();
    }

    /** The bound. */
    public int capacity() {
        return capacity;
    }

    /** The queue's name. */
    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "BoundedQueue[" + name + ", " + size() + "/" + capacity + "]";
    }
}
