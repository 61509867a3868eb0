package io.psmr.simulation;

/**
 * The closed-form conflict rate, derived in {@code docs/simulation.md}.
 *
 * <p>Each of the B keys of the incoming batch and each of the g·B keys of the list lands on a bit
 * uniformly and independently, so a pair of distinct keys shares a bit with probability 1/m. The
 * incoming batch is conflict-free iff it shares no key with the list and none of its g·B² pairs
 * of distinct keys shares a bit:
 * <pre>
 *   rate = 1 - P(no shared key) · (1 - 1/m)^(g·B_eff²)
 * </pre>
 * For the paper's uniform keys ({@code P(no shared key) ≈ exp(-g·B²/K)}, B_eff = B) this is
 * {@code 1 - (1-1/m)^(g·B²) · exp(-g·B²/K) ≈ 1 - exp(-g·B²/m)}. Partitions replace 1/m by the chance that two distinct keys share a partition (1/P for K &gt;&gt; P);
 * read/write bitmaps count only the pairs not both read, {@code (1 - F²)/m}.
 * {@link KeyOverlap} supplies P(no shared key) and B_eff for each key distribution.
 */
public final class AnalyticModel {

    private AnalyticModel() {
    }

    /** The expected rates of a cell. */
    public static AnalyticRates rates(SimulationConfig c) {
        return rates(c, KeyOverlap.of(c));
    }

    /** The expected rates of a cell whose {@link KeyOverlap} is already known (it does not depend on m or P). */
    public static AnalyticRates rates(SimulationConfig c, KeyOverlap overlap) {
        if (c.graphSize() == 0) {
            return new AnalyticRates(0, 0, 0, 0, 0);
        }
        double pairs = c.graphSize() * overlap.distinctKeys() * overlap.distinctKeys();
        double f = c.readFraction();
        double bitmap = conflict(overlap.logNoShared(), pairs, 1.0 / c.bitmapBits());
        double exact = -Math.expm1(overlap.logNoShared());
        double rwBitmap = conflict(overlap.logNoSharedRw(), pairs, (1 - f * f) / c.bitmapBits());
        double rwExact = -Math.expm1(overlap.logNoSharedRw());
        double partition = c.partitions() > 0
                ? conflict(overlap.logNoShared(), pairs, samePartition(c.keys(), c.partitions()))
                : 0;
        return new AnalyticRates(bitmap, exact, rwBitmap, rwExact, partition);
    }

    /**
     * The chance that two distinct keys, uniform over {@code [0, K)}, fall in the same partition
     * {@code key mod P}: partitions hold {@code floor(K/P)} or one more keys, so it is
     * {@code Σ n_j (n_j - 1) / (K (K - 1))}, which is 1/P when K is a multiple of P and large, and
     * 0 when P &ge; K (partitions are then exact keys). For Zipf keys an approximation.
     */
    static double samePartition(long keys, int partitions) {
        if (keys < 2) {
            return 0;
        }
        double q = keys / partitions;
        double r = keys % partitions;
        double pairs = r * (q + 1) * q + (partitions - r) * q * (q - 1);
        return pairs / ((double) keys * (keys - 1));
    }

    /** 1 - exp(logNoShared) · (1 - q)^pairs, computed without cancellation. */
    private static double conflict(double logNoShared, double pairs, double q) {
        return -Math.expm1(logNoShared + pairs * Math.log1p(-q));
    }
}
