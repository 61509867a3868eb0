package io.psmr.scheduler;

/**
 * {@link ConflictMode#BITMAP}: one Bloom bitmap of all the batch's keys, read or written. Two
 * batches conflict when their bitmaps intersect (Algorithm 1, {@code bitmapConflict}).
 */
public final class BitmapSummary implements ConflictSummary {

    private final BloomBitmap bits;
    /** The set bits, increasing: read once here, where the summary is made or decoded, not by the delivery thread. */
    private final int[] setBits;

    /** A summary over {@code bits}, which the caller must no longer modify. */
    public BitmapSummary(BloomBitmap bits) {
        this.bits = bits;
        this.setBits = bits.toArray();
    }

    /** The bitmap; read only. */
    public BloomBitmap bitmap() {
        return bits;
    }

    /**
     * The set bits in increasing order, read from the bitmap when this summary was made (on a replica, on the
     * decode path), so that the indexed graphs' delivery thread reads a plain array. Read only: never modify it.
     */
    public int[] setBits() {
        return setBits;
    }

    @Override
    public ConflictMode mode() {
        return ConflictMode.BITMAP;
    }

    @Override
    public boolean conflictsWith(ConflictSummary other) {
        ConflictSummary.requireMode(ConflictMode.BITMAP, other);
        return bits.intersects(((BitmapSummary) other).bits);
    }

    @Override
    public int bitmapBits() {
        return bits.sizeBits();
    }

    @Override
    public boolean covers(byte[] key, long digest, boolean write) {
        return bits.get(KeyDigest.bitIndex(digest, bits.sizeBits()));
    }

    @Override
    public void forEachElement(ElementVisitor visitor) {
        bits.forEachSetBit(bit -> visitor.onBit(bit, true));
    }

    @Override
    public String toString() {
        return "BitmapSummary[" + bits + "]";
    }
}
