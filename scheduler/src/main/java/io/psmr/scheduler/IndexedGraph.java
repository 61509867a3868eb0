package io.psmr.scheduler;

import java.util.ArrayList;

/**
 * A dependency graph with the same partial order as {@link MonitorGraph} whose insert costs
 * O(bits or keys of the new batch), whatever the number of pending batches: a new batch gets edges
 * only from the last pending writer and the pending readers of each of its bits or keys, kept in a
 * {@link PendingAccessIndex}.
 *
 * <p>Threads and bounds: see {@link DependencyGraph}. The index is touched under the graph's lock:
 * the delivery thread probes and updates it while inserting, and each worker forgets its batch's
 * accesses while removing it. {@link SplitIndexedGraph} moves that work off the lock.
 */
public final class IndexedGraph<C extends Command> extends AbstractDependencyGraph<C> {

    private final PendingAccessIndex<C> index;
    private final ArrayList<GraphNode<C>> predecessors = new ArrayList<>();
    private long stamp;

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     */
    public IndexedGraph(ConflictDetection detection, int capacity) {
        this(detection, capacity, 0);
    }

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     * @param spins     how many checks a worker with nothing to take makes before it parks (0: parks at once)
     */
    public IndexedGraph(ConflictDetection detection, int capacity, int spins) {
        this(detection, capacity, spins, WakePolicy.EAGER);
    }

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     * @param spins     how many checks a worker with nothing to take makes before it parks (0: parks at once)
     * @param wake      when a batch that becomes free wakes a parked worker
     */
    public IndexedGraph(ConflictDetection detection, int capacity, int spins, WakePolicy wake) {
        super(detection, capacity, spins, wake);
        this.index = new PendingAccessIndex<>(detection.mode() == ConflictMode.RW_BITMAP);
    }

    @Override
    void link(GraphNode<C> node) {
        conflictChecks += index.link(node, ++stamp, predecessors);
        for (int i = 0, n = predecessors.size(); i < n; i++) {
            conflictsFound++;
            addEdge(predecessors.get(i), node);
        }
        predecessors.clear();
    }

    @Override
    void unlink(GraphNode<C> node) {
        index.forget(node);
    }

    @Override
    void clearIndex() {
        index.clear();
    }
}
