package io.psmr.bench.e2e;

import io.psmr.bench.load.WorkloadSpec;

import io.psmr.scheduler.SchedulerMode;

import io.psmr.ordering.OrderingProtocol;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one {@code psmr bench e2e} invocation measures.
 *
 * @param orderings   the ordering layers, in report order (each runs every mode)
 * @param modes       the replica configurations, in report order (CBASE and sequential included)
 * @param workload    the clients' workload (its duration is the measured runs'; warm-up runs are shorter)
 * @param workers     worker threads of the replica (parallel modes)
 * @param batch       most client commands per batch (CBASE: 1)
 * @param window      batches the proxy keeps outstanding
 * @param conflictPct percentage of batches that also write the proxy's hot key
 * @param bitmapBits  bitmap size m of the bitmap modes
 * @param runs        measured runs per mode, after one warm-up run each
 * @param warmup      length of each warm-up run
 * @param duration    length of each measured run
 * @param seed        seed of the clients' choices
 * @param cores       available processors
 * @param outDir      the folder that receives {@code bench-e2e-<timestamp>/}
 * @param sweep       the points every (ordering, mode) pair runs at; {@code batch} is its first batch
 */
public record E2eSettings(List<OrderingProtocol> orderings, List<SchedulerMode> modes, WorkloadSpec workload, int workers, int batch, int window, int conflictPct,
                          int bitmapBits, int runs, Duration warmup, Duration duration, long seed, int cores, Path outDir,
                          E2eSweep sweep) {

    /** Copies the list. */
    public E2eSettings {
        orderings = List.copyOf(orderings);
        modes = List.copyOf(modes);
        Objects.requireNonNull(sweep, "sweep");
    }

    /** Settings without a sweep: one point at {@code batch}, PBFT's defaults. */
    public E2eSettings(List<OrderingProtocol> orderings, List<SchedulerMode> modes, WorkloadSpec workload, int workers, int batch,
            int window, int conflictPct, int bitmapBits, int runs, Duration warmup, Duration duration, long seed, int cores,
            Path outDir) {
        this(orderings, modes, workload, workers, batch, window, conflictPct, bitmapBits, runs, warmup, duration, seed, cores,
                outDir, E2eSweep.none(batch));
    }

    /** Closed-loop clients. */
    public int clients() {
        return workload.clients();
    }

    /** Size of the clients' key space. */
    public int keys() {
        return workload.keys();
    }
}
