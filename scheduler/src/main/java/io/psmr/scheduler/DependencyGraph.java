package io.psmr.scheduler;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The abridged dependency graph of Algorithm 1: pending batches as vertices, an edge from each
 * batch to every later batch it conflicts with (or, in {@link IndexedGraph}, to enough of them to
 * give the same transitive closure). A batch is free when no pending batch precedes it.
 *
 * <p><b>Threads.</b> One delivery thread calls {@link #insert} (never two at once, and each call
 * happens-before the next, as one thread's calls or calls handed over through a lock: the
 * {@link SplitIndexedGraph} keeps state only that thread touches, and an insert into a graph with room
 * the delivery thread has already seen takes no lock to wait for room); any number of worker threads call
 * {@link #take}, {@link #tryTake} and {@link #remove}. The graph's shared state is guarded by one
 * lock (the monitor of §VI-A); the split graph does its index work outside it, on the delivery
 * thread. Inserting a batch happens-before its being taken, and removing a batch happens-before the
 * taking of any batch it freed, so a worker sees everything its predecessors wrote. {@link #take}
 * blocks on the lock's "a batch is free" condition, after at most the configured number of spins;
 * {@link #insert} blocks on "there is room".
 *
 * <p><b>Bounds.</b> The graph holds at most {@link #capacity()} batches, taken ones included;
 * {@link #insert} blocks while it is full.
 *
 * @param <C> the command type
 */
public interface DependencyGraph<C extends Command> {

    /**
     * Adds a delivered batch, with edges from every pending batch it conflicts with. Blocks while
     * the graph is full. Algorithm 1's {@code dgInsertBatch}.
     *
     * @throws IllegalArgumentException if the batch is null, its instance does not follow the last
     *                                  inserted one, or its summary does not match the graph's
     *                                  {@link ConflictDetection}; the graph is unchanged
     * @throws IllegalStateException    if the graph is closed
     * @throws InterruptedException     if interrupted while waiting for room; the graph is unchanged
     */
    void insert(Batch<C> batch) throws InterruptedException;

    /**
     * Takes the oldest free batch not yet taken, waiting until there is one. Algorithm 1's
     * {@code dgGetBatch}.
     *
     * @return the batch, or {@code null} once the graph is closed and drained, or aborted
     */
    PendingBatch<C> take() throws InterruptedException;

    /** Like {@link #take} but never waits: {@code null} if no batch is free now. */
    PendingBatch<C> tryTake();

    /**
     * Removes a taken batch after it ran, freeing the batches that depended on it. Algorithm 1's
     * {@code dgRemoveBatch}.
     *
     * @throws IllegalArgumentException if {@code taken} was not taken from this graph, or was removed already
     */
    void remove(PendingBatch<C> taken);

    /**
     * {@link #remove} then {@link #take} under one acquisition of the lock: the worker's loop.
     * A worker that frees batches takes the oldest free one itself instead of waking another
     * thread for it. The removal happens even if the wait for the next batch is interrupted.
     *
     * @return the next batch, or {@code null} once the graph is closed and drained, or aborted
     * @throws IllegalArgumentException as {@link #remove}; nothing is removed or taken
     */
    PendingBatch<C> removeAndTake(PendingBatch<C> done) throws InterruptedException;

    /** Batches in the graph, taken ones included. */
    int size();

    /** The most batches the graph holds. */
    int capacity();

    /** The settings every inserted summary must match. */
    ConflictDetection detection();

    /** Refuses further inserts; {@link #take} returns {@code null} once every batch has been removed. */
    void close();

    /**
     * Closes the graph and drops every batch not yet taken. Taken batches may still be removed.
     *
     * @return the dropped batches, in delivery order
     */
    List<Batch<C>> abort();

    /** Waits until the graph holds no batch. @return whether it emptied before the timeout */
    boolean awaitEmpty(long timeout, TimeUnit unit) throws InterruptedException;

    /** Counters and size statistics. */
    GraphStatistics statistics();

    /**
     * The direct edges now in the graph, for tests and diagnostics: each pending batch's instance
     * mapped to the instances it directly depends on, in delivery order. Allocates; not for hot paths.
     */
    Map<Long, List<Long>> edges();
}
