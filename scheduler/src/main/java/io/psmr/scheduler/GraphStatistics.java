package io.psmr.scheduler;

/**
 * Counters of a {@link DependencyGraph}, read at one moment.
 *
 * @param inserted       batches inserted
 * @param removed        batches removed after execution
 * @param conflictChecks conflict tests made on insert: summary comparisons ({@link MonitorGraph}) or
 *                       index probes, one per bit or key (the indexed graphs)
 * @param conflictsFound conflict tests that found a pending predecessor ({@link MonitorGraph}), or
 *                       distinct pending predecessors found by the index (the indexed graphs; a
 *                       written bit's readers each count, so this may exceed {@code conflictChecks})
 * @param edgesAdded     dependency edges added (distinct predecessor, successor pairs)
 * @param meanSize       time-weighted mean number of batches in the graph since it was created
 * @param maxSize        largest number of batches the graph held
 * @param size           batches in the graph now
 * @param ready          batches in the graph now that wait for no predecessor and no worker has taken
 *                       yet; {@code size - ready} batches are running or blocked behind a conflict
 */
public record GraphStatistics(long inserted, long removed, long conflictChecks, long conflictsFound,
                              long edgesAdded, double meanSize, int maxSize, int size, int ready) {

    /** Statistics without the ready count (0), as recorded before it was kept. */
    public GraphStatistics(long inserted, long removed, long conflictChecks, long conflictsFound,
                           long edgesAdded, double meanSize, int maxSize, int size) {
        this(inserted, removed, conflictChecks, conflictsFound, edgesAdded, meanSize, maxSize, size, 0);
    }
}
