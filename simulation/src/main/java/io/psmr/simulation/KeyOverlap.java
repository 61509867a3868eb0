package io.psmr.simulation;

/**
 * The key-level part of the analytic model: how many distinct keys a batch holds, and the chance
 * that an incoming batch shares no key (or no conflicting key) with the g batches of the list.
 * Independent of the bitmap size, so one instance serves every m of a sweep or a sizing search.
 *
 * <p>With {@code π_k} the probability that key k is in a batch, {@code ω_k} that it is written
 * there and {@code ρ_k = π_k - ω_k} that it is only read, and batches independent:
 * <pre>
 *   B_eff   = Σ_k π_k
 *   P(no shared key)            = Π_k [1 - π_k (1 - (1-π_k)^g)]
 *   P(no shared key with a write) = Π_k [1 - ω_k (1 - (1-π_k)^g) - ρ_k (1 - (1-ω_k)^g)]
 * </pre>
 * Uniform batches of B distinct keys have {@code π_k = B/K}, {@code ω_k = (1-F)B/K}, so the
 * products are closed forms.
 *
 * <p>For Zipf batches of B independent draws with probabilities {@code p_k}, the product form
 * misjudges skew (hot keys make the events of different keys far from independent). Given the
 * list, the B draws are independent, so {@code P(no shared key) = E[(1 - X)^B]} with X the mass
 * of the keys in the list; the model takes X's mean and variance ({@code B_eff = Σ 1-(1-p_k)^B}).
 * The first 2^20 ranks are summed term by term and the tail, where {@code B p_k} is tiny, by its
 * first order in {@code p_k} with the integral of {@code x^-θ}. See {@code docs/simulation.md}.
 *
 * @param distinctKeys   B_eff, the expected number of distinct keys in a batch
 * @param logNoShared    log P(no key shared with the list)
 * @param logNoSharedRw  log P(no key shared with the list and written by either side)
 */
public record KeyOverlap(double distinctKeys, double logNoShared, double logNoSharedRw) {

    /** Ranks summed exactly for Zipf; beyond them B·p_k is below about 10^-4 for the defaults. */
    static final int ZIPF_HEAD = 1 << 20;

    /** The key overlap of a cell (its bitmap size and partitions are ignored). */
    public static KeyOverlap of(SimulationConfig c) {
        int g = c.graphSize();
        double f = c.readFraction();
        if (c.distribution() == KeyDistribution.UNIFORM) {
            double k = c.keys();
            double pi = c.batchSize() / k;
            double omega = pi * (1 - f);
            double rho = pi * f;
            double inList = -Math.expm1(g * Math.log1p(-pi));
            double writtenInList = -Math.expm1(g * Math.log1p(-omega));
            return new KeyOverlap(c.batchSize(),
                    k * Math.log1p(-pi * inList),
                    k * Math.log1p(-omega * inList - rho * writtenInList));
        }
        return zipf(c.keys(), c.zipfTheta(), c.batchSize(), g, f);
    }

    private static KeyOverlap zipf(long keys, double theta, int b, int g, double f) {
        long head = Math.min(keys, ZIPF_HEAD);
        double headMass = 0;
        for (long k = head; k >= 1; k--) { // smallest terms first, for accuracy
            headMass += Math.pow(k, -theta);
        }
        double tail1 = tailSum(head, keys, theta);
        double tail2 = tailSum(head, keys, 2 * theta);
        double z = headMass + tail1;
        double a = 1 - f; // probability that one draw writes
        double distinct = 0;
        double mean = 0;
        double var = 0;
        double meanRw = 0;
        double varRw = 0;
        for (long k = 1; k <= head; k++) {
            double p = Math.pow(k, -theta) / z;
            double inList = -Math.expm1((double) g * b * Math.log1p(-p));
            double writtenInList = -Math.expm1((double) g * b * Math.log1p(-a * p));
            distinct += -Math.expm1(b * Math.log1p(-p));
            mean += p * inList;
            var += p * p * inList * (1 - inList);
            // One draw conflicts if it writes a key in the list, or reads a key written there.
            meanRw += p * (a * inList + f * writtenInList);
            varRw += p * p * (a * a * inList * (1 - inList) + f * f * writtenInList * (1 - writtenInList)
                    + 2 * a * f * writtenInList * (1 - inList));
        }
        // Tail, where B·p is tiny: first order in p of each sum.
        double sumP = tail1 / z;
        double sumP2 = tail2 / (z * z);
        distinct += b * sumP - 0.5 * b * (b - 1.0) * sumP2;
        mean += (double) g * b * sumP2;
        meanRw += (double) g * b * sumP2 * (1 - f * f);
        return new KeyOverlap(distinct, logNoConflict(b, mean, var), logNoConflict(b, meanRw, varRw));
    }

    /**
     * log E[(1 - X)^B] for the chance X that one draw hits the list, from X's mean and variance:
     * the incoming batch's B draws are independent given the list, and a second-order expansion
     * around the mean corrects Jensen's gap, which is large for skewed keys.
     */
    private static double logNoConflict(int b, double mean, double var) {
        double q = 1 - Math.min(1.0, mean);
        if (q == 0) {
            return Double.NEGATIVE_INFINITY;
        }
        double base = b * Math.log(q);
        double correction = b > 1 ? 0.5 * b * (b - 1.0) * var / (q * q) : 0;
        return base + Math.log1p(correction);
    }

    /** Σ_{k=from+1}^{to} k^-a by the midpoint rule's integral, accurate to O(from^-a-2). */
    static double tailSum(long from, long to, double a) {
        if (to <= from) {
            return 0;
        }
        double lo = from + 0.5;
        double hi = to + 0.5;
        if (Math.abs(a - 1) < 1e-12) {
            return Math.log(hi / lo);
        }
        return (Math.pow(hi, 1 - a) - Math.pow(lo, 1 - a)) / (1 - a);
    }
}
