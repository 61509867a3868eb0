package io.psmr.scheduler;

import java.util.function.IntConsumer;
import org.roaringbitmap.RoaringBitmap;

/** A {@link BloomBitmap} backed by a {@link RoaringBitmap}; the default representation. */
public final class RoaringBloomBitmap implements BloomBitmap {

    private final int bits;
    private final RoaringBitmap bitmap = new RoaringBitmap();

    /** An empty bitmap of {@code bits} bits. */
    public RoaringBloomBitmap(int bits) {
        if (bits <= 0) {
            throw new IllegalArgumentException("bitmap size must be positive, got " + bits);
        }
        this.bits = bits;
    }

    @Override
    public BitmapRepresentation representation() {
        return BitmapRepresentation.ROARING;
    }

    @Override
    public int sizeBits() {
        return bits;
    }

    @Override
    public void set(int bit) {
        checkBit(bit);
        bitmap.add(bit);
    }

    @Override
    public boolean get(int bit) {
        checkBit(bit);
        return bitmap.contains(bit);
    }

    @Override
    public int cardinality() {
        return bitmap.getCardinality();
    }

    @Override
    public boolean intersects(BloomBitmap other) {
        requireCompatible(other);
        // RoaringBitmap.intersects walks both container arrays without materialising the result.
        return RoaringBitmap.intersects(bitmap, ((RoaringBloomBitmap) other).bitmap);
    }

    @Override
    public void forEachSetBit(IntConsumer action) {
        bitmap.forEach((org.roaringbitmap.IntConsumer) action::accept);
    }

    @Override
    public int[] toArray() {
        // Decodes container by container, without a call per bit.
        return bitmap.toArray();
    }

    /** Compacts containers after filling; optional, called by the summary builder. */
    void optimize() {
        bitmap.runOptimize();
    }

    private void checkBit(int bit) {
        if (bit < 0 || bit >= bits) {
            throw new IllegalArgumentException("bit " + bit + " outside a bitmap of " + bits + " bits");
        }
    }

    @Override
    public String toString() {
        return "RoaringBloomBitmap[" + bits + " bits, " + cardinality() + " set]";
    }
}
