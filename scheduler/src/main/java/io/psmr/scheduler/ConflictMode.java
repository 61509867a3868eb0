package io.psmr.scheduler;

/**
 * How the scheduler decides whether two batches conflict. Every mode is free of false negatives:
 * if two batches truly conflict, the mode says so. Modes other than the exact-key ones may also
 * report conflicts that do not exist (false positives), which costs only parallelism.
 */
public enum ConflictMode {

    /**
     * Algorithm 1's {@code cmmdKeyConflict} (lines 30-31), as written: every key of one batch is
     * compared with every key of the other. Any shared key is a conflict, read or write. With batch
     * size 1 and {@link GraphKind#MONITOR} this is the CBASE parallelizer.
     */
    KEYS_PAIRWISE,

    /** Exact key conflicts, like {@link #KEYS_PAIRWISE}, found in O(keys) per pair through hashed key sets. */
    KEYS_HASHED,

    /**
     * Algorithm 1's {@code bitmapConflict} (lines 28-29): a one-hash Bloom bitmap of the batch's keys;
     * two batches conflict when their bitmaps intersect.
     */
    BITMAP,

    /**
     * Separate read and write bitmaps (beyond the paper). Batches 1 and 2 conflict iff
     * W1 ∩ (R2 ∪ W2) ≠ ∅ or R1 ∩ W2 ≠ ∅, so two readers of a key never conflict.
     */
    RW_BITMAP;

    /** Whether summaries of this mode carry bitmaps, and so have a bitmap size. */
    public boolean usesBitmaps() {
        return this == BITMAP || this == RW_BITMAP;
    }
}
