package io.psmr.scheduler;

/**
 * The dependency graph of Algorithm 1 and §VI-A, as written: an insert compares the new batch's
 * summary with the summary of every node in {@code nodeList}, taken or not (lines 18-20), and
 * adds an edge from each one it conflicts with. Insert thus costs one conflict test per pending
 * batch; with {@link ConflictMode#KEYS_PAIRWISE} and batches of one command this is CBASE.
 *
 * <p>Threads and bounds: see {@link DependencyGraph}.
 */
public final class MonitorGraph<C extends Command> extends AbstractDependencyGraph<C> {

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     */
    public MonitorGraph(ConflictDetection detection, int capacity) {
        this(detection, capacity, 0);
    }

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     * @param spins     how many checks a worker with nothing to take makes before it parks (0: parks at once)
     */
    public MonitorGraph(ConflictDetection detection, int capacity, int spins) {
        this(detection, capacity, spins, WakePolicy.EAGER);
    }

    /**
     * @param detection the settings every summary must match
     * @param capacity  the most batches the graph holds before {@link #insert} blocks
     * @param spins     how many checks a worker with nothing to take makes before it parks (0: parks at once)
     * @param wake      when a batch that becomes free wakes a parked worker
     */
    public MonitorGraph(ConflictDetection detection, int capacity, int spins, WakePolicy wake) {
        super(detection, capacity, spins, wake);
    }

    @Override
    void link(GraphNode<C> node) {
        ConflictSummary incoming = node.batch.summary();
        for (GraphNode<C> n = head; n != null; n = n.next) {
            conflictChecks++;
            if (n.batch.summary().conflictsWith(incoming)) {
                conflictsFound++;
                addEdge(n, node);
            }
        }
    }

    @Override
    void unlink(GraphNode<C> node) {
        // Outgoing edges are dropped by the caller; nothing else refers to the node.
    }

    @Override
    void clearIndex() {
    }
}
