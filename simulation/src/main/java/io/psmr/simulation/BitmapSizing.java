package io.psmr.simulation;

/**
 * Answers "how many bits keep the conflict rate under R?" for a batch size and graph size: the
 * smallest m whose analytic bitmap conflict rate is at most R. The rate falls as m grows, so a
 * binary search over m finds it exactly for the closed form.
 */
public final class BitmapSizing {

    /** The answer of a sizing search. */
    public record Answer(int bitmapBits, double analyticRate, double analyticRateOneBitLess) {
    }

    private BitmapSizing() {
    }

    /**
     * The smallest m with analytic rate {@code <= target}.
     *
     * @param base   the cell; its bitmap size is ignored
     * @param target a rate in (0, 1]
     * @throws IllegalArgumentException if no m reaches the target, because true conflicts (shared
     *                                  keys), which no bitmap removes, already exceed it
     */
    public static Answer smallestBits(SimulationConfig base, double target) {
        if (!(target > 0 && target <= 1)) {
            throw new IllegalArgumentException("target rate must be in (0, 1], got " + target);
        }
        KeyOverlap overlap = KeyOverlap.of(base);
        double best = rate(base, overlap, Integer.MAX_VALUE);
        if (best > target) {
            throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                    "no bitmap size reaches %.4f%%: true conflicts alone give %.4f%% (%.4f%% at m = 2^31-1)",
                    100 * target, 100 * -Math.expm1(overlap.logNoShared()), 100 * best));
        }
        int lo = 1;
        int hi = Integer.MAX_VALUE; // invariant: rate(hi) <= target
        while (lo < hi) {
            int mid = (int) (((long) lo + hi) >>> 1);
            if (rate(base, overlap, mid) <= target) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        double below = hi > 1 ? rate(base, overlap, hi - 1) : Double.NaN;
        return new Answer(hi, rate(base, overlap, hi), below);
    }

    private static double rate(SimulationConfig base, KeyOverlap overlap, int bits) {
        return AnalyticModel.rates(base.withBitmapBits(bits), overlap).bitmap();
    }
}
