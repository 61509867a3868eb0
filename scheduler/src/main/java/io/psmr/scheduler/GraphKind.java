package io.psmr.scheduler;

/** Which {@link DependencyGraph} a scheduler uses. Both give the same partial order. */
public enum GraphKind {

    /** {@link MonitorGraph}: Algorithm 1 and §VI-A as written; insert compares against every node. */
    MONITOR,

    /** {@link IndexedGraph}: insert costs O(keys or bits of the batch), whatever the graph's size. */
    INDEXED;

    /** A new, empty graph of this kind. */
    public <C extends Command> DependencyGraph<C> create(ConflictDetection detection, int capacity) {
        return switch (this) {
            case MONITOR -> new MonitorGraph<>(detection, capacity);
            case INDEXED -> new IndexedGraph<>(detection, capacity);
        };
    }
}
