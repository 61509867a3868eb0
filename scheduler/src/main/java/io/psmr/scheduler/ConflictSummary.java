package io.psmr.scheduler;

/**
 * What the scheduler knows of a batch's keys: enough to decide, without false negatives, whether
 * two batches conflict. Built by a {@link SummaryBuilder} (at the client proxy, or at the replica)
 * and checked against the batch's commands by a {@link SummaryVerifier}.
 *
 * <p>A summary is immutable once built and may be read from any thread.
 */
public sealed interface ConflictSummary permits KeyListSummary, KeySetSummary, BitmapSummary, RwBitmapSummary {

    /** The mode whose semantics {@link #conflictsWith} implements. */
    ConflictMode mode();

    /**
     * Whether a batch with this summary may conflict with a batch with {@code other}. Symmetric.
     * Never false when the batches share a conflicting key.
     *
     * @throws IllegalArgumentException if {@code other} is of another mode, bitmap size or representation
     */
    boolean conflictsWith(ConflictSummary other);

    /** The bitmap size in bits, or 0 for the exact-key modes. */
    int bitmapBits();

    /**
     * Whether the summary covers a key: a later conflicting batch would be found to conflict
     * through it. Used to verify summaries made by a proxy.
     *
     * @param write whether the key is written
     */
    boolean covers(byte[] key, long digest, boolean write);

    /**
     * Visits the summary's elements (bits or keys) with the access each is indexed under. An
     * element that is read and written is visited once, as a write. Used by {@link IndexedGraph}.
     */
    void forEachElement(ElementVisitor visitor);

    /** Receives the elements of a summary. */
    interface ElementVisitor {
        /** A bit of a bitmap summary. */
        void onBit(int bit, boolean write);

        /** A key of an exact-key summary. */
        void onKey(Key key, boolean write);
    }

    /** Throws the standard mismatch error if {@code other} is not of {@code mode}. */
    static void requireMode(ConflictMode mode, ConflictSummary other) {
        if (other.mode() != mode) {
            throw new IllegalArgumentException("conflict mode mismatch: " + mode + " summary against " + other.mode());
        }
    }
}
