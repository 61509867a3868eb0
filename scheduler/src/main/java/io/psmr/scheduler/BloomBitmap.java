package io.psmr.scheduler;

import java.util.function.IntConsumer;

/**
 * A one-hash Bloom bitmap of {@code m} bits: bit {@code KeyDigest.bitIndex(digest, m)} is set for
 * each key. Two bitmaps intersect when some bit is set in both, which the scheduler reads as a
 * possible conflict. With one hash function there are no false negatives: equal keys set equal bits.
 *
 * <p>A bitmap is filled by one thread (the builder) and read-only afterwards; it is published to
 * other threads through the scheduler's delivery, which is a happens-before edge.
 */
public sealed interface BloomBitmap permits RoaringBloomBitmap, DenseBloomBitmap {

    /** Creates an empty bitmap of {@code bits} bits in the given representation. */
    static BloomBitmap create(BitmapRepresentation representation, int bits) {
        return switch (representation) {
            case ROARING -> new RoaringBloomBitmap(bits);
            case DENSE -> new DenseBloomBitmap(bits);
        };
    }

    /** The representation of this bitmap. */
    BitmapRepresentation representation();

    /** The bitmap size {@code m}, in bits. */
    int sizeBits();

    /** Sets the bit of a key digest, {@code floorMod(digest, m)}. */
    default void addDigest(long digest) {
        set(KeyDigest.bitIndex(digest, sizeBits()));
    }

    /** Sets bit {@code bit}, which must be in {@code [0, m)}. */
    void set(int bit);

    /** Whether bit {@code bit} is set. */
    boolean get(int bit);

    /** Number of bits set. */
    int cardinality();

    /**
     * Whether some bit is set in both bitmaps. Allocates nothing.
     *
     * @throws IllegalArgumentException if the sizes or representations differ
     */
    boolean intersects(BloomBitmap other);

    /** Calls {@code action} with each set bit, in increasing order. */
    void forEachSetBit(IntConsumer action);

    /**
     * The set bits in increasing order, in a new array of {@link #cardinality()} elements. The
     * indexed graphs read a batch's bits through this in one tight loop, without a call per bit.
     */
    int[] toArray();

    /** Checks that {@code other} can be intersected with this bitmap; names the mismatch if not. */
    default void requireCompatible(BloomBitmap other) {
        if (other.sizeBits() != sizeBits()) {
            throw new IllegalArgumentException(
                    "bitmap size mismatch: " + sizeBits() + " bits against " + other.sizeBits() + " bits");
        }
        if (other.representation() != representation()) {
            throw new IllegalArgumentException(
                    "bitmap representation mismatch: " + representation() + " against " + other.representation());
        }
    }
}
