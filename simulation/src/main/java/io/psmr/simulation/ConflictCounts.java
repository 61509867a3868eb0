package io.psmr.simulation;

/**
 * How many of {@code iterations} incoming batches conflicted with at least one batch of the list,
 * under each granularity, all measured on the same stream of batches.
 *
 * @param iterations  incoming batches checked
 * @param bitmap      conflicts of the paper's one-bitmap summaries: some bit set in both
 * @param exactKeys   true conflicts: some key in both, read or written (what exact keys report)
 * @param rwBitmap    conflicts of read/write bitmaps: W1∩(R2∪W2) or R1∩W2 non-empty
 * @param rwExactKeys true read/write conflicts: some key in both and written by at least one
 * @param partition   partition conflicts: some {@code key mod P} in both (0 when no P was set)
 */
public record ConflictCounts(long iterations, long bitmap, long exactKeys, long rwBitmap, long rwExactKeys,
        long partition) {

    /** No batches yet. */
    public static final ConflictCounts ZERO = new ConflictCounts(0, 0, 0, 0, 0, 0);

    /** The sum of two disjoint runs. */
    public ConflictCounts plus(ConflictCounts o) {
        return new ConflictCounts(iterations + o.iterations, bitmap + o.bitmap, exactKeys + o.exactKeys,
                rwBitmap + o.rwBitmap, rwExactKeys + o.rwExactKeys, partition + o.partition);
    }

    /** Bitmap conflicts that share no key: the false positives. */
    public long falsePositives() {
        return bitmap - exactKeys;
    }

    /** {@code count / iterations} as a fraction. */
    public double rate(long count) {
        return iterations == 0 ? 0.0 : (double) count / iterations;
    }
}
