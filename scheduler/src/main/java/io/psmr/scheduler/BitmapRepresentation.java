package io.psmr.scheduler;

/** How a {@link BloomBitmap} stores its bits. Both have identical semantics. */
public enum BitmapRepresentation {
    /** A compressed RoaringBitmap: small for sparse bitmaps such as a batch's few hundred bits. */
    ROARING,
    /** A plain {@code long[]} of {@code m} bits, scanned only over its non-zero word range. */
    DENSE
}
