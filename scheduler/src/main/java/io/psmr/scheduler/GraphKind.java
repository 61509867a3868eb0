package io.psmr.scheduler;

/** Which {@link DependencyGraph} a scheduler uses. All give the same partial order. */
public enum GraphKind {

    /** {@link MonitorGraph}: Algorithm 1 and §VI-A as written; insert compares against every node. */
    MONITOR,

    /** {@link IndexedGraph}: insert costs O(keys or bits of the batch), whatever the graph's size; the index is under the lock. */
    INDEXED,

    /** {@link SplitIndexedGraph}: the indexed graph with its index owned by the delivery thread, off the lock. */
    SPLIT_INDEXED;

    /** A new, empty graph of this kind whose workers park at once when nothing is free. */
    public <C extends Command> DependencyGraph<C> create(ConflictDetection detection, int capacity) {
        return create(detection, capacity, 0);
    }

    /**
     * A new, empty graph of this kind.
     *
     * @param spins how many checks a worker with nothing to take makes before it parks (0: parks at once)
     */
    public <C extends Command> DependencyGraph<C> create(ConflictDetection detection, int capacity, int spins) {
        return create(detection, capacity, spins, WakePolicy.EAGER);
    }

    /**
     * A new, empty graph of this kind.
     *
     * @param spins how many checks a worker with nothing to take makes before it parks (0: parks at once)
     * @param wake  when a batch that becomes free wakes a parked worker
     */
    public <C extends Command> DependencyGraph<C> create(ConflictDetection detection, int capacity, int spins,
                                                         WakePolicy wake) {
        return switch (this) {
            case MONITOR -> new MonitorGraph<>(detection, capacity, spins, wake);
            case INDEXED -> new IndexedGraph<>(detection, capacity, spins, wake);
            case SPLIT_INDEXED -> new SplitIndexedGraph<>(detection, capacity, spins, wake);
        };
    }

    /** The name in results files: {@code monitor}, {@code indexed}, {@code split-indexed}. */
    public String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
