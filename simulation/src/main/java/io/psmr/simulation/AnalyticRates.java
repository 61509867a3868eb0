package io.psmr.simulation;

/**
 * Expected conflict rates of one cell under each granularity, as fractions in [0, 1]; see
 * {@link AnalyticModel}.
 *
 * @param bitmap      one-bitmap summaries (the paper's)
 * @param exactKeys   exact keys: true conflicts
 * @param rwBitmap    read/write bitmaps
 * @param rwExactKeys exact keys with read/write semantics
 * @param partition   partitions {@code key mod P}; 0 when the cell has no P
 */
public record AnalyticRates(double bitmap, double exactKeys, double rwBitmap, double rwExactKeys, double partition) {

    /** Bitmap conflicts expected without a shared key. */
    public double falsePositive() {
        return bitmap - exactKeys;
    }
}
