package io.psmr.scheduler;

import java.util.Arrays;

/**
 * {@link ConflictMode#RW_BITMAP}: a bitmap of the keys only read and one of the keys written.
 * Batches 1 and 2 conflict iff W1 ∩ (R2 ∪ W2) ≠ ∅ or R1 ∩ W2 ≠ ∅; two readers never conflict.
 */
public final class RwBitmapSummary implements ConflictSummary {

    private final BloomBitmap reads;
    private final BloomBitmap writes;
    /** The written bits, then the read bits that are not also written, each part increasing. */
    private final int[] accessBits;
    /** How many of {@link #accessBits}, from the start, are written bits. */
    private final int writtenBits;

    /**
     * A summary over a read bitmap and a write bitmap of the same size and representation, which
     * the caller must no longer modify. A written key's bit belongs in {@code writes} only.
     */
    public RwBitmapSummary(BloomBitmap reads, BloomBitmap writes) {
        reads.requireCompatible(writes);
        this.reads = reads;
        this.writes = writes;
        // Read once here, where the summary is made or decoded, not by the delivery thread (as BitmapSummary).
        int[] w = writes.toArray();
        int[] r = reads.toArray();
        int[] all = Arrays.copyOf(w, w.length + r.length);
        int n = w.length;
        int j = 0;
        for (int bit : r) {
            // Both arrays are increasing: advance through the writes to the first not below bit.
            while (j < w.length && w[j] < bit) {
                j++;
            }
            if (j == w.length || w[j] != bit) {
                all[n++] = bit;
            }
        }
        this.accessBits = n < all.length ? Arrays.copyOf(all, n) : all;
        this.writtenBits = w.length;
    }

    /**
     * The bits this summary's batch accesses, each once: first the written bits, then the read bits that are
     * not also written (a written bit counts as a write), each part increasing. Made with the summary (on a
     * replica, on the decode path), so that the indexed graphs' delivery thread reads a plain array. Read
     * only: never modify it.
     */
    public int[] accessBits() {
        return accessBits;
    }

    /** How many of {@link #accessBits()}, from the start, are written bits. */
    public int writtenBits() {
        return writtenBits;
    }

    /** Bits of keys that are read; read only. */
    public BloomBitmap reads() {
        return reads;
    }

    /** Bits of keys that are written; read only. */
    public BloomBitmap writes() {
        return writes;
    }

    @Override
    public ConflictMode mode() {
        return ConflictMode.RW_BITMAP;
    }

    @Override
    public boolean conflictsWith(ConflictSummary other) {
        ConflictSummary.requireMode(ConflictMode.RW_BITMAP, other);
        RwBitmapSummary o = (RwBitmapSummary) other;
        return writes.intersects(o.writes) || writes.intersects(o.reads) || reads.intersects(o.writes);
    }

    @Override
    public int bitmapBits() {
        return writes.sizeBits();
    }

    @Override
    public boolean covers(byte[] key, long digest, boolean write) {
        int bit = KeyDigest.bitIndex(digest, writes.sizeBits());
        // A read key whose bit sits in the write bitmap is covered too: it only adds conflicts.
        return writes.get(bit) || (!write && reads.get(bit));
    }

    @Override
    public void forEachElement(ElementVisitor visitor) {
        writes.forEachSetBit(bit -> visitor.onBit(bit, true));
        reads.forEachSetBit(bit -> {
            if (!writes.get(bit)) {
                visitor.onBit(bit, false);
            }
        });
    }

    @Override
    public String toString() {
        return "RwBitmapSummary[reads=" + reads + ", writes=" + writes + "]";
    }
}
