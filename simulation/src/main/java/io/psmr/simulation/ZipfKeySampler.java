package io.psmr.simulation;

import java.util.SplittableRandom;

/**
 * Zipf-distributed keys: rank {@code r} in {@code 1..K} has probability proportional to
 * {@code r^-θ}, and is returned as key {@code r - 1}.
 *
 * <p>Uses rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion to generate
 * variates from monotone discrete distributions", ACM TOMACS 6(3), 1996), the method of Apache
 * Commons RNG: constant expected time and no table, which matters because K is 10^9 by default.
 */
public final class ZipfKeySampler implements KeySampler {

    private final long keys;
    private final double theta;
    private final double hIntegralX1;
    private final double hIntegralK;
    private final double s;

    /** A sampler over {@code keys >= 1} ranks with exponent {@code theta > 0}. */
    public ZipfKeySampler(long keys, double theta) {
        if (keys < 1) {
            throw new IllegalArgumentException("key count must be positive, got " + keys);
        }
        if (!(theta > 0) || Double.isInfinite(theta)) {
            throw new IllegalArgumentException("zipf exponent must be positive and finite, got " + theta);
        }
        this.keys = keys;
        this.theta = theta;
        this.hIntegralX1 = hIntegral(1.5) - 1.0;
        this.hIntegralK = hIntegral(keys + 0.5);
        this.s = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2.0));
    }

    @Override
    public long next(SplittableRandom random) {
        while (true) {
            double u = hIntegralK + random.nextDouble() * (hIntegralX1 - hIntegralK);
            double x = hIntegralInverse(u);
            long k = (long) (x + 0.5);
            if (k < 1) {
                k = 1;
            } else if (k > keys) {
                k = keys;
            }
            // Accept at once inside the squeeze, else compare with the exact hat integral.
            if (k - x <= s || u >= hIntegral(k + 0.5) - h(k)) {
                return k - 1;
            }
        }
    }

    /** H(x) = ((x^(1-θ)) - 1) / (1 - θ), written to stay accurate as θ approaches 1. */
    private double hIntegral(double x) {
        double logX = Math.log(x);
        return helper2((1.0 - theta) * logX) * logX;
    }

    private double h(double x) {
        return Math.exp(-theta * Math.log(x));
    }

    private double hIntegralInverse(double x) {
        double t = x * (1.0 - theta);
        if (t < -1.0) {
            // Rounding can push t just below -1, outside the inverse's domain.
            t = -1.0;
        }
        return Math.exp(helper1(t) * x);
    }

    /** log(1 + x) / x, with its series near 0 where the quotient loses precision. */
    private static double helper1(double x) {
        return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
    }

    /** (exp(x) - 1) / x, with its series near 0. */
    private static double helper2(double x) {
        return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
    }
}
