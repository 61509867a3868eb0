package io.psmr.simulation;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Simulation and closed form agree on small configurations, within a tolerance derived from the
 * binomial standard error rather than a fixed number.
 *
 * <p>The N indicators "batch i conflicts" are not independent: batch i and j share list batches
 * when |i - j| &le; g. Each covariance is at most the variance (Cauchy-Schwarz), and only 2g
 * neighbours of each batch have one, so the variance of the count is at most (1 + 2g) times the
 * binomial one. The test allows Z = 4.5 such standard errors: a correct model fails one check with
 * probability below 10^-5. The model's own approximation error is below 0.01 pp for uniform keys
 * (docs/simulation.md), far inside this.
 */
class AnalyticAgreementTest {

    private static final double Z = 4.5;
    private static final long SEED = 20_240_501L;
    private static final long N = 60_000;

    static Stream<SimulationConfig> configs() {
        return Stream.of(
                new SimulationConfig(4096, 32, 3, SimulationConfig.DEFAULT_KEYS, N, KeyDistribution.UNIFORM, 0.99, 0, 0),
                new SimulationConfig(20_000, 50, 1, SimulationConfig.DEFAULT_KEYS, N, KeyDistribution.UNIFORM, 0.99,
                        0.5, 128),
                // A small key space, so true conflicts are frequent and the split is tested too.
                new SimulationConfig(1_000_000, 32, 3, 20_000, N, KeyDistribution.UNIFORM, 0.99, 0.7, 5000),
                new SimulationConfig(4096, 16, 2, 1_000_000, N, KeyDistribution.ZIPF, 0.99, 0.5, 0),
                new SimulationConfig(100_000, 50, 3, 100_000, N, KeyDistribution.ZIPF, 0.5, 0.3, 0));
    }

    @ParameterizedTest
    @MethodSource("configs")
    void simulationMatchesTheClosedForm(SimulationConfig c) {
        CellResult r = new Simulation(2, SEED, ProgressDisplay.NONE).run(c);
        String context = "seed " + SEED + ", " + c.describe() + ", N = " + N;
        check("bitmap", r.counts().bitmap(), r.analytic().bitmap(), c, context);
        check("exact keys", r.counts().exactKeys(), r.analytic().exactKeys(), c, context);
        check("r/w bitmaps", r.counts().rwBitmap(), r.analytic().rwBitmap(), c, context);
        check("r/w exact keys", r.counts().rwExactKeys(), r.analytic().rwExactKeys(), c, context);
        if (c.partitions() > 0 && c.distribution() == KeyDistribution.UNIFORM) {
            check("partitions", r.counts().partition(), r.analytic().partition(), c, context);
        }
    }

    private static void check(String what, long count, double expected, SimulationConfig c, String context) {
        double observed = (double) count / c.iterations();
        // The error is judged at the model's rate, so that a wildly wrong simulation of 0 or 1
        // cannot make its own tolerance vanish.
        double se = Math.sqrt(expected * (1 - expected) / c.iterations()) * Math.sqrt(1 + 2.0 * c.graphSize());
        double tolerance = Z * Math.max(se, 1.0 / c.iterations());
        assertTrue(Math.abs(observed - expected) <= tolerance, () -> String.format(java.util.Locale.ROOT,
                "%s: simulated %.4f%%, analytic %.4f%%, tolerance %.4f pp (%s)", what, 100 * observed,
                100 * expected, 100 * tolerance, context));
    }
}
