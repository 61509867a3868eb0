package io.psmr.bench.scheduler;

import io.psmr.bench.scheduler.service.BenchStore;
import io.psmr.bench.scheduler.service.BusyWork;
import io.psmr.bench.scheduler.service.ServiceKind;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What one {@code psmr bench} invocation measures.
 *
 * @param modes       the scheduler configurations (psmr modes and COS baselines), in report order
 * @param workers     worker counts of the parallel configurations
 * @param batches     commands per batch
 * @param conflicts   percentages of batches that write the hot key
 * @param bitmapBits  bitmap size m of the bitmap modes
 * @param maxPending  most batches in the dependency graph before delivery blocks
 * @param runs        measured runs per configuration (after one warm-up run each)
 * @param warmup      length of the warm-up run of each configuration
 * @param duration    length of each measured run
 * @param verify      whether the scheduler verifies each summary on the delivery thread
 * @param seed        seed of the workloads
 * @param cores       usable cores, for the limit
 * @param outDir      the folder that receives {@code bench-<timestamp>/}
 * @param stores      the stores of the key-value service: the first runs the matrix, each further one
 *                    runs it again as an A/B twin in the same rounds (ignored by the map service)
 * @param service     the service the commands run through
 * @param workNanos   extra busy work per command, nanoseconds (0 to {@link BusyWork#MAX_NANOS})
 * @param summaries   where the parallel cells' summaries are built
 */
public record BenchSettings(List<BenchMode> modes, List<Integer> workers, List<Integer> batches, List<Integer> conflicts,
                            int bitmapBits, int maxPending, int runs, Duration warmup, Duration duration,
                            boolean verify, long seed, int cores, Path outDir, List<BenchStore> stores,
                            ServiceKind service, long workNanos, SummaryTiming summaries) {

    /** Default bitmap size m: the paper's larger one. */
    public static final int DEFAULT_BITS = 1_024_000;
    /** Default bound on pending batches. */
    public static final int DEFAULT_MAX_PENDING = 64;

    public BenchSettings {
        modes = List.copyOf(modes);
        workers = List.copyOf(workers);
        batches = List.copyOf(batches);
        conflicts = List.copyOf(conflicts);
        stores = List.copyOf(stores);
        if (stores.isEmpty()) {
            throw new IllegalArgumentException("at least one store");
        }
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(summaries, "summaries");
        if (workNanos < 0 || workNanos > BusyWork.MAX_NANOS) {
            throw new IllegalArgumentException("workNanos must be from 0 to " + BusyWork.MAX_NANOS + ", got " + workNanos);
        }
    }

    /** The key-value service on one store ({@code heapStore}: a heap map, else Chronicle Map), no extra work, summaries built before timing. */
    public BenchSettings(List<BenchMode> modes, List<Integer> workers, List<Integer> batches, List<Integer> conflicts,
                         int bitmapBits, int maxPending, int runs, Duration warmup, Duration duration,
                         boolean verify, long seed, int cores, Path outDir, boolean heapStore) {
        this(modes, workers, batches, conflicts, bitmapBits, maxPending, runs, warmup, duration, verify, seed, cores,
                outDir, List.of(heapStore ? BenchStore.HEAP : BenchStore.CHRONICLE), ServiceKind.KV, 0, SummaryTiming.PRE);
    }

    /** The store of the matrix: the first of {@link #stores()}. */
    public BenchStore store() {
        return stores.get(0);
    }

    /** The A/B twin stores: every store but the first. */
    public List<BenchStore> twinStores() {
        return stores.subList(1, stores.size());
    }

    /** The part of each run before measuring starts: a tenth of it, so that the graph has filled. */
    public Duration ramp() {
        return duration.dividedBy(10);
    }
}
