package io.psmr.kvstore;


/**
 * How {@code ./psmr load} and {@code ./psmr cluster start} turn their {@code --max-keys},
 * {@code --max-bytes} and {@code --value-size} flags into a replicated {@link StoreCapacity} and a
 * Chronicle Map sized for it. Both use the same rules, so a cluster and an embedded run given the
 * same flags refuse the same writes.
 *
 * <p>Stateless; any thread.
 */
public final class StoreSizing {

    /**
     * The key size the default byte capacity allows per entry: 16 bytes, enough for every key the load
     * tool writes ({@code "k"} and at most 9 digits) and for the proxy's hot key and its value.
     */
    public static final int KEY_BYTES = 16;

    private StoreSizing() {
    }

    /** The default {@code --max-bytes}: {@code maxKeys × (KEY_BYTES + valueBytes)}, so that entries bind first. */
    public static long defaultMaxBytes(long maxKeys, int valueBytes) {
        return Math.multiplyExact(maxKeys, (long) KEY_BYTES + valueBytes);
    }

    /**
     * The largest useful {@code --max-bytes} for {@code maxKeys} entries: each with the largest key and
     * value {@link KvLimits#defaults()} allow. More could never be used, and would only inflate the
     * Chronicle Map sized for it.
     */
    public static long maxUsefulBytes(long maxKeys) {
        KvLimits l = KvLimits.defaults();
        return Math.multiplyExact(maxKeys, (long) l.maxKeyBytes() + l.maxValueBytes());
    }

    /** The in-memory Chronicle Map every replica opens for {@code capacity}: it never fills before the capacity. */
    public static StoreConfig storeConfig(StoreCapacity capacity) {
        return StoreConfig.defaults().forCapacity(capacity, KEY_BYTES);
    }

    /**
     * A capacity the load {@code w}, in batches of at most {@code batch} commands, can never fill: every
     * key of the key space plus the proxy's hot key, plus what one batch may reserve on top of the exact
     * counts (the capacity guard reserves each write's largest growth until its next sync, at most one
     * batch's worth: {@code (batch + 1) × multiPutKeys} entries, the hot write included), each entry
     * allowed {@link #KEY_BYTES} of key and {@code valueSize} of value.
     */
    public static StoreCapacity workloadCapacity(int batch, long keys, int multiPutKeys, int valueSize) {
        long entries = keys + 1L + (Math.max(1, batch) + 1L) * multiPutKeys;
        return new StoreCapacity(entries, defaultMaxBytes(entries, valueSize));
    }
}
