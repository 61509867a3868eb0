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
 *   <li>without the lock, it forgets the accesses of the batches that left the graph since the
 *       previous insert, then collects the new batch's candidate predecessors from the index
 *       (the last writer and the readers since, of each bit or key) without changing the index;</li>
 *   <li>under the lock, it adds an edge from every candidate that has not been removed meanwhile,
 *       and takes over the list of batches removed since the previous insert;</li>
 *   <li>without the lock, once the batch is in the graph, it records the batch's own accesses.</li>
 * </ol>
 * A worker's removal only appends its batch to that list, under the lock it holds anyway.
 *
 * <p><b>Why it gives the same order.</b> The index may still name a removed batch (its removal is
 * forgotten only at the next insert); step 2 drops it, as {@link IndexedGraph} would never have
 * named it. A removed batch's own pending predecessors were removed before it (it ran only once they
 * had), so skipping it loses no edge. The index is changed only after the batch entered the graph,
 * so an insert that fails (out of order, closed, interrupted) leaves it as it was. Only the delivery
 * thread inserts, so no batch enters between steps 1 and 3.
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
    /** Candidates of the batch being inserted; delivery thread only (read under the lock in step 2). */
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
        super(detection, capacity, spins);
        this.index = new PendingAccessIndex<>(detection.mode() == ConflictMode.RW_BITMAP);
        this.removedSinceInsert = new ArrayList<>(Math.min(capacity + 1, 1024));
        this.toForget = new ArrayList<>(Math.min(capacity + 1, 1024));
    }

    @Override
    void prepare(GraphNode<C> node) {
        for (int i = 0, n = toForget.size(); i < n; i++) {
            index.forget(toForget.get(i));
        }
        toForget.clear();
        candidates.clear();
        probes = index.predecessors(node, ++stamp, candidates, false);
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
    void admitted(GraphNode<C> node) {
        index.record(node);
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
