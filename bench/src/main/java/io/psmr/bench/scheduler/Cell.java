package io.psmr.bench.scheduler;

import io.psmr.scheduler.SchedulerMode;

/**
 * One configuration of the benchmark matrix. Sequential cells have {@code workers == 1}.
 *
 * @param mode         the scheduler configuration
 * @param batch        commands per batch
 * @param workers      worker threads
 * @param conflictPct  percentage of batches that write the hot key
 * @param summaryTimed whether the delivery thread builds each batch's summary inside the timed loop
 *                     (see {@link SummaryTiming}); false for sequential cells, which build none
 */
public record Cell(SchedulerMode mode, int batch, int workers, int conflictPct, boolean summaryTimed) {

    /** A cell with summaries built before timing. */
    public Cell(SchedulerMode mode, int batch, int workers, int conflictPct) {
        this(mode, batch, workers, conflictPct, false);
    }

    /** Whether this is the CBASE reference: exact keys, monitor graph, batches of 1. */
    public boolean isCbase() {
        return mode == SchedulerMode.CBASE;
    }

    /** The {@code summaries} column: {@code pre} or {@code timed}; {@code none} for sequential cells. */
    public String summaries() {
        return !mode.parallel() ? "none" : summaryTimed ? "timed" : "pre";
    }

    /**
     * A short description, e.g. {@code bitmap-indexed batch 200, 2 workers, 0% conflicts}, with
     * {@code , summaries timed} appended when they are.
     */
    public String describe() {
        return mode.cliName() + " batch " + batch + ", " + workers + (workers == 1 ? " worker, " : " workers, ")
                + conflictPct + "% conflicts" + (summaryTimed ? ", summaries timed" : "");
    }
}
