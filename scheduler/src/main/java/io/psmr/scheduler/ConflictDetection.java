package io.psmr.scheduler;

import java.util.Objects;

/**
 * The conflict-detection settings that proxies and replicas must agree on: the mode and, for the
 * bitmap modes, the bitmap size {@code m} and its representation.
 *
 * @param mode           how conflicts are decided
 * @param bitmapBits     bitmap size {@code m} for the bitmap modes (the paper uses 102,400 and
 *                       1,024,000); ignored, and reported as 0, for the exact-key modes
 * @param representation how bitmaps are stored; ignored for the exact-key modes
 */
public record ConflictDetection(ConflictMode mode, int bitmapBits, BitmapRepresentation representation) {

    /** The default bitmap size of the scheduler benchmark and the paper's larger one. */
    public static final int DEFAULT_BITMAP_BITS = 1_024_000;

    /** Validates and normalises the settings. */
    public ConflictDetection {
        Objects.requireNonNull(mode, "mode");
        if (mode.usesBitmaps()) {
            Objects.requireNonNull(representation, "representation");
            if (bitmapBits <= 0) {
                throw new IllegalArgumentException("bitmap size must be positive, got " + bitmapBits);
            }
        } else {
            bitmapBits = 0;
            representation = null;
        }
    }

    /** Exact keys compared pairwise, as CBASE and Algorithm 1's {@code cmmdKeyConflict}. */
    public static ConflictDetection keysPairwise() {
        return new ConflictDetection(ConflictMode.KEYS_PAIRWISE, 0, null);
    }

    /** Exact keys through hashed key sets. */
    public static ConflictDetection keysHashed() {
        return new ConflictDetection(ConflictMode.KEYS_HASHED, 0, null);
    }

    /** One Roaring bitmap of {@code bits} bits per batch. */
    public static ConflictDetection bitmap(int bits) {
        return new ConflictDetection(ConflictMode.BITMAP, bits, BitmapRepresentation.ROARING);
    }

    /** Roaring read and write bitmaps of {@code bits} bits per batch. */
    public static ConflictDetection rwBitmap(int bits) {
        return new ConflictDetection(ConflictMode.RW_BITMAP, bits, BitmapRepresentation.ROARING);
    }

    /** The same settings with another bitmap representation. */
    public ConflictDetection withRepresentation(BitmapRepresentation r) {
        return new ConflictDetection(mode, bitmapBits, r);
    }

    /**
     * Checks that a summary was made under these settings.
     *
     * @throws IllegalArgumentException naming the mismatch: mode, bitmap size or representation
     */
    public void requireMatches(ConflictSummary summary) {
        Objects.requireNonNull(summary, "batch has no conflict summary");
        if (summary.mode() != mode) {
            throw new IllegalArgumentException(
                    "conflict summary mode " + summary.mode() + " does not match the scheduler's " + mode);
        }
        if (mode.usesBitmaps()) {
            if (summary.bitmapBits() != bitmapBits) {
                throw new IllegalArgumentException("bitmap has " + summary.bitmapBits()
                        + " bits but the scheduler is configured for " + bitmapBits + " bits");
            }
            BitmapRepresentation r = summary instanceof BitmapSummary b
                    ? b.bitmap().representation()
                    : ((RwBitmapSummary) summary).writes().representation();
            if (r != representation) {
                throw new IllegalArgumentException(
                        "bitmap representation " + r + " does not match the scheduler's " + representation);
            }
        }
    }

    @Override
    public String toString() {
        return mode.usesBitmaps() ? mode + "(" + bitmapBits + " bits, " + representation + ")" : mode.toString();
    }
}
