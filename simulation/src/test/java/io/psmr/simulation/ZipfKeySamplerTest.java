package io.psmr.simulation;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The Zipf sampler's frequencies match r^-θ / H(K, θ), within binomial error. */
class ZipfKeySamplerTest {

    @Test
    void frequenciesFollowThePowerLaw() {
        long seed = 99;
        long keys = 1000;
        for (double theta : new double[] {0.5, 0.99, 1.0, 1.5}) {
            ZipfKeySampler sampler = new ZipfKeySampler(keys, theta);
            SplittableRandom random = new SplittableRandom(seed);
            int n = 200_000;
            long[] counts = new long[(int) keys];
            for (int i = 0; i < n; i++) {
                long k = sampler.next(random);
                assertTrue(k >= 0 && k < keys, "key " + k + " out of range, theta " + theta);
                counts[(int) k]++;
            }
            double h = 0;
            for (long r = 1; r <= keys; r++) {
                h += Math.pow(r, -theta);
            }
            for (int rank = 1; rank <= 20; rank++) {
                double p = Math.pow(rank, -theta) / h;
                double observed = (double) counts[rank - 1] / n;
                double tolerance = 4.5 * Math.sqrt(p * (1 - p) / n);
                final int r = rank;
                assertTrue(Math.abs(observed - p) <= tolerance, () -> "seed " + seed + ", theta " + theta
                        + ", rank " + r + ": observed " + observed + ", expected " + p);
            }
        }
    }
}
