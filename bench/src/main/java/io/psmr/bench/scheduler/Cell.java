package io.psmr.bench.scheduler;

import io.psmr.scheduler.SchedulerMode;

/**
 * One configuration of the benchmark matrix. Sequential cells have {@code workers == 1}.
 *
 * @param mode        what the cell runs: a psmr scheduler mode or a COS baseline
 * @param batch       commands per batch (1 for CBASE and COS)
 * @param workers     worker threads
 * @param conflictPct percentage of batches that write the hot key
 */
public record Cell(BenchMode mode, int batch, int workers, int conflictPct) {

    /** A cell of one of psmr's scheduler modes. */
    public Cell(SchedulerMode mode, int batch, int workers, int conflictPct) {
        this(BenchMode.of(mode), batch, workers, conflictPct);
    }

    /** Whether this is the CBASE reference: exact keys, monitor graph, batches of 1. */
    public boolean isCbase() {
        return psmrMode() == SchedulerMode.CBASE;
    }

    /** Whether this is a COS baseline. */
    public boolean isCos() {
        return mode instanceof BenchMode.Cos;
    }

    /** The psmr scheduler mode this cell runs; null for a COS baseline. */
    public SchedulerMode psmrMode() {
        return mode instanceof BenchMode.Psmr p ? p.mode() : null;
    }

    /** A short description, e.g. {@code bitmap-indexed batch 200, 2 workers, 0% conflicts}. */
    public String describe() {
        return mode.cliName() + " batch " + batch + ", " + workers + (workers == 1 ? " worker, " : " workers, ")
                + conflictPct + "% conflicts";
    }
}
