package io.psmr.scheduler;

import java.util.ArrayList;

/**
 * {@link IndexedGraph}'s partial order, with its index taken off the lock: the delivery thread is
 * the index's only writer and reader, and the lock guards only the edges, the free queue and the
 * counters. Workers wait on the lock for a few dozen instructions per batch instead of for the
 * hundreds of index probes that an insert or a removal of a batch of 200 commands costs.
 *
 * <p><b>How an insert runs</b>, all on the delivery thread:
 * <ol>
 *   <li>it checks the order and, under the lock, waits for room (room found stays: only the
 *       delivery thread inserts, so while room seen at an earlier insert is left it takes no lock here);</li>
 *   <li>without the lock, it forgets the accesses of the batches that left the graph before the
 *       previous insert, then, in one pass over the new batch's bits or keys, collects its candidate
 *       predecessors (the last writer and the readers since) and records its own accesses;</li>
 *   <li>under the lock, it adds an edge from every candidate that has not been removed meanwhile,
 *       and takes over the list of batches removed since the previous insert.</li>
 * </ol>
 * A worker's removal only appends its batch to that list, under the lock it holds anyway.
 *
 * <p><b>Why it gives the same order.</b> The index may still name a removed batch (its removal is
 * forgotten only at a later insert); step 3 drops it, as {@link IndexedGraph} would never have
 * named it. A removed batch's own pending predecessors were removed before it (it ran only once they
 * had), so skipping it loses no edge. Once step 2 has changed the index the insert cannot fail
 * except by the graph closing, after which the index is never read again.
 *
 * <p><b>Bounds.</b> The removed-batches list holds at most {@code capacity + 1} batches: each batch
 * is appended once, and the list is emptied at every insert. While no batch is delivered, up to
 * {@code capacity} executed batches stay referenced by it until the next insert or until the graph
 * is dropped.
 *
 * <p>{@link #abort} leaves the index alone (the delivery thread may be reading it); the graph is
 * closed by then, so it is never read again.
 */
public final class SplitIndexedGraph<C extends Command> extends AbstractDependencyGraph<C> {

    /** Delivery thread only. */
    private final PendingAccessIndex<C> index;
    /** Candidates of the batch being inserted; delivery thread only (read under the lock in step 3). */
    private final ArrayList<GraphNode<C>> candidates = new ArrayList<>();
    /** Index probes of the batch being inserted, added to the statistics under the lock. */
    private long probes;
    private long stamp;
    /** Batches removed since the last insert; under the lock. */
    private ArrayList<GraphNode<C>> removedSinceInsert;
    /** Batches whose accesses the next insert forgets; delivery thread only, swapped under the lock. */
    private ArrayList<GraphNode<C>> toForget;

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     */
    public SplitIndexedGraph(ConflictDetection detection, int capacity) {
        this(detection, capacity, 0);
    }

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     * @param spins     how many checks a worker with nothing to take makes before it parks (0: parks at once)
     */
    public SplitIndexedGraph(ConflictDetection detection, int capacity, int spins) {
        this(detection, capacity, spins, WakePolicy.EAGER);
    }

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     * @param spins     how many checks a worker with nothing to take makes before it parks (0: parks at once)
     * @param wake      when a batch that becomes free wakes a parked worker
     */
    public SplitIndexedGraph(ConflictDetection detection, int capacity, int spins, WakePolicy wake) {
        super(detection, capacity, spins, wake);
        this.index = new PendingAccessIndex<>(detection.mode() == ConflictMode.RW_BITMAP);
        this.removedSinceInsert = new ArrayList<>(Math.min(capacity + 1, 1024));
        this.toForget = new ArrayList<>(Math.min(capacity + 1, 1024));
    }

    @Override
    boolean preparesOutsideLock() {
        return true;
    }

    @Override
    void prepare(GraphNode<C> node) {
        for (int i = 0, n = toForget.size(); i < n; i++) {
            index.forget(toForget.get(i));
        }
        toForget.clear();
        candidates.clear();
        probes = index.link(node, ++stamp, candidates);
    }

    @Override
    void link(GraphNode<C> node) {
        conflictChecks += probes;
        for (int i = 0, n = candidates.size(); i < n; i++) {
            GraphNode<C> pred = candidates.get(i);
            if (!pred.removed) {
                conflictsFound++;
                addEdge(pred, node);
            }
        }
        candidates.clear();
        // toForget was emptied in prepare; hand it to the workers and take what they removed.
        ArrayList<GraphNode<C>> removed = removedSinceInsert;
        removedSinceInsert = toForget;
        toForget = removed;
    }

    @Override
    void unlink(GraphNode<C> node) {
        removedSinceInsert.add(node);
    }

    @Override
    void clearIndex() {
        removedSinceInsert.clear();
    }
}
