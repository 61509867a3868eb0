package io.psmr.kvstore;

/**
 * How much the store may hold, as part of the replicated configuration: every replica of a cluster
 * must use the same, or they refuse different writes. A write that could take the store past either
 * bound is refused with {@link KvStatus#FULL}; the decision is made in delivery order by
 * {@link CapacityGuard}, from counters that depend only on the log.
 *
 * <p>Bytes count what the clients stored: the sum, over entries, of key length plus value length.
 * The backend's own overhead is not counted; {@link StoreConfig#forCapacity} sizes Chronicle Map with
 * headroom above these bounds, so the map itself never fills first.
 *
 * @param maxEntries most entries (at least 1)
 * @param maxBytes   most key-plus-value bytes over all entries (at least 1)
 */
public record StoreCapacity(long maxEntries, long maxBytes) {

    /** Validates the bounds. */
    public StoreCapacity {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("store capacity maxEntries must be at least 1, got " + maxEntries);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("store capacity maxBytes must be at least 1, got " + maxBytes);
        }
    }

    /** No practical bound: for tests and embedded uses that size the store themselves. */
    public static StoreCapacity unbounded() {
        return new StoreCapacity(Long.MAX_VALUE / 4, Long.MAX_VALUE / 4);
    }

    /** {@code entries} entries of keys and values averaging {@code averageEntryBytes} (key plus value). */
    public static StoreCapacity of(long entries, long averageEntryBytes) {
        return new StoreCapacity(entries, Math.multiplyExact(entries, averageEntryBytes));
    }
}
