package io.psmr.bench.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * What one {@code psmr bench e2e} invocation measures.
 *
 * @param orderings   the ordering layers, in report order (each runs every mode)
 * @param modes       the replica configurations, in report order (CBASE and sequential included)
 * @param clients     closed-loop clients
 * @param workers     worker threads of the replica (parallel modes)
 * @param batch       most client commands per batch (CBASE: 1)
 * @param window      batches the proxy keeps outstanding
 * @param conflictPct percentage of batches that also write the proxy's hot key
 * @param keys        size of the clients' key space
 * @param bitmapBits  bitmap size m of the bitmap modes
 * @param runs        measured runs per mode, after one warm-up run each
 * @param warmup      length of each warm-up run
 * @param duration    length of each measured run
 * @param seed        seed of the clients' choices
 * @param cores       available processors
 * @param outDir      the folder that receives {@code bench-e2e-<timestamp>/}
 */
public record E2eSettings(List<E2eOrdering> orderings, List<E2eMode> modes, int clients, int workers, int batch, int window, int conflictPct, int keys,
                          int bitmapBits, int runs, Duration warmup, Duration duration, long seed, int cores, Path outDir) {

    /** Copies the list. */
    public E2eSettings {
        orderings = List.copyOf(orderings);
        modes = List.copyOf(modes);
    }
}
