package io.psmr.bench.scheduler;

import io.psmr.bench.scheduler.service.BenchStore;
import io.psmr.scheduler.SchedulerMode;

/**
 * One configuration of the benchmark matrix. Sequential cells have {@code workers == 1}.
 *
 * @param mode         what the cell runs: a psmr scheduler mode or a COS baseline
 * @param batch        commands per batch (1 for CBASE and COS)
 * @param workers      worker threads
 * @param conflictPct  percentage of batches that write the hot key
 * @param summaryTimed whether each batch's summary is built inside the timed loop, by a summary stage ahead of the delivery thread
 *                     (see {@link SummaryTiming}); false for sequential and COS cells, which build none
 * @param twinStore    the A/B store this cell runs on instead of the invocation's first store
 *                     ({@link BenchSettings#twinStores()}); null for the first store
 */
public record Cell(BenchMode mode, int batch, int workers, int conflictPct, boolean summaryTimed, BenchStore twinStore) {

    /** A cell on the invocation's first store. */
    public Cell(BenchMode mode, int batch, int workers, int conflictPct, boolean summaryTimed) {
        this(mode, batch, workers, conflictPct, summaryTimed, null);
    }

    /** A cell with summaries built before timing (or none, for sequential and COS cells). */
    public Cell(BenchMode mode, int batch, int workers, int conflictPct) {
        this(mode, batch, workers, conflictPct, false);
    }

    /** A cell of one of psmr's scheduler modes. */
    public Cell(SchedulerMode mode, int batch, int workers, int conflictPct, boolean summaryTimed) {
        this(BenchMode.of(mode), batch, workers, conflictPct, summaryTimed);
    }

    /** A cell of one of psmr's scheduler modes, with summaries built before timing. */
    public Cell(SchedulerMode mode, int batch, int workers, int conflictPct) {
        this(BenchMode.of(mode), batch, workers, conflictPct, false);
    }

    /** This cell on {@code store} (null: the invocation's first store). */
    public Cell on(BenchStore store) {
        return new Cell(mode, batch, workers, conflictPct, summaryTimed, store);
    }

    /** Whether this is the CBASE reference: exact keys, monitor graph, batches of 1. */
    public boolean isCbase() {
        return psmrMode() == SchedulerMode.CBASE;
    }

    /** Whether this is a COS baseline. */
    public boolean isCos() {
        return mode instanceof BenchMode.Cos;
    }

    /** Whether this is the {@code partitioned} reference: threads split by key, no scheduler. */
    public boolean isPartitioned() {
        return mode instanceof BenchMode.Partitioned;
    }

    /** The psmr scheduler mode this cell runs; null for a COS baseline and the {@code partitioned} reference. */
    public SchedulerMode psmrMode() {
        return mode instanceof BenchMode.Psmr p ? p.mode() : null;
    }

    /** The graph this cell's scheduler runs on; null for sequential and COS cells. */
    public io.psmr.scheduler.GraphKind graph() {
        return mode instanceof BenchMode.Psmr p ? p.graph() : null;
    }

    /** How many checks this cell's idle workers make before parking (0 for references and COS). */
    public int workerSpins() {
        return mode instanceof BenchMode.Psmr p ? p.spins() : 0;
    }

    /** When this cell's parked workers are woken ({@link io.psmr.scheduler.SchedulerBuilder#DEFAULT_WAKE_POLICY} for references and COS). */
    public io.psmr.scheduler.WakePolicy wakePolicy() {
        return mode instanceof BenchMode.Psmr p ? p.wakePolicy() : io.psmr.scheduler.SchedulerBuilder.DEFAULT_WAKE_POLICY;
    }

    /**
     * Whether this cell runs {@code mode} as a replica runs it (no design variant, summaries pre-built) on the
     * invocation's first store.
     */
    public boolean runs(SchedulerMode m) {
        return mode.equals(BenchMode.of(m)) && !summaryTimed && twinStore == null;
    }

    /** Whether this cell builds summaries (parallel psmr modes; not sequential, COS or partitioned). */
    public boolean buildsSummaries() {
        return mode.parallel() && mode instanceof BenchMode.Psmr;
    }

    /**
     * The {@code summaries} column: {@code pre} or {@code timed}; {@code none} for sequential, COS
     * and partitioned cells, which build no summary.
     */
    public String summaries() {
        return !buildsSummaries() ? "none" : summaryTimed ? "timed" : "pre";
    }

    /**
     * The configuration's name in tables and charts: the mode's name, with {@code @STORE} appended on an
     * A/B twin store, e.g. {@code sequential@heap}.
     */
    public String label() {
        return mode.cliName() + (twinStore != null ? "@" + twinStore.cliName() : "");
    }

    /**
     * A short description, e.g. {@code bitmap-indexed batch 200, 2 workers, 0% conflicts}, with
     * {@code , summaries timed} appended when they are.
     */
    public String describe() {
        return mode.cliName() + " batch " + batch + ", " + workers + (workers == 1 ? " worker, " : " workers, ")
                + conflictPct + "% conflicts" + (summaryTimed ? ", summaries timed" : "")
                + (twinStore != null ? ", store " + twinStore.cliName() : "");
    }
}
