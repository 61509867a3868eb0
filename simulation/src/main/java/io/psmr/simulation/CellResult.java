package io.psmr.simulation;

/**
 * A simulated cell beside its analytic figures and, for Table I cells, the paper's figure.
 *
 * @param config   the cell
 * @param counts   what the simulation counted
 * @param analytic what the closed form expects
 * @param paperPct the paper's conflict rate in percent, or {@code NaN} when the paper has none
 */
public record CellResult(SimulationConfig config, ConflictCounts counts, AnalyticRates analytic, double paperPct) {

    /** Simulated bitmap conflict rate, percent. */
    public double simulatedPct() {
        return pct(counts.bitmap());
    }

    /** Simulated bitmap conflicts without a shared key, percent of iterations. */
    public double falsePositivePct() {
        return pct(counts.falsePositives());
    }

    /** Simulated true conflicts (shared key), percent. */
    public double trueConflictPct() {
        return pct(counts.exactKeys());
    }

    /** Simulated read/write bitmap conflict rate, percent. */
    public double rwBitmapPct() {
        return pct(counts.rwBitmap());
    }

    /** Simulated true read/write conflicts, percent. */
    public double rwExactKeysPct() {
        return pct(counts.rwExactKeys());
    }

    /** Simulated partition conflicts, percent (0 without partitions). */
    public double partitionPct() {
        return pct(counts.partition());
    }

    /** The binomial standard error of {@link #simulatedPct()}, in percentage points. */
    public double standardErrorPct() {
        double p = counts.rate(counts.bitmap());
        return 100 * Math.sqrt(p * (1 - p) / counts.iterations());
    }

    /** Whether the paper has a figure for this cell. */
    public boolean hasPaper() {
        return !Double.isNaN(paperPct);
    }

    private double pct(long count) {
        return 100 * counts.rate(count);
    }
}
