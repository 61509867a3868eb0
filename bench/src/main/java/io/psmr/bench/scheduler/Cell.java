package io.psmr.bench.scheduler;

import io.psmr.scheduler.SchedulerMode;

/**
 * One configuration of the benchmark matrix. Sequential cells have {@code workers == 1}.
 *
 * @param mode        the scheduler configuration
 * @param batch       commands per batch
 * @param workers     worker threads
 * @param conflictPct percentage of batches that write the hot key
 */
public record Cell(SchedulerMode mode, int batch, int workers, int conflictPct) {

    /** Whether this is the CBASE reference: exact keys, monitor graph, batches of 1. */
    public boolean isCbase() {
        return mode == SchedulerMode.CBASE;
    }

    /** A short description, e.g. {@code bitmap-indexed batch 200, 2 workers, 0% conflicts}. */
    public String describe() {
        return mode.cliName() + " batch " + batch + ", " + workers + (workers == 1 ? " worker, " : " workers, ")
                + conflictPct + "% conflicts";
    }
}
