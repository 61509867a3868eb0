package io.psmr.bench.demo;

import java.util.Objects;

import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.GraphKind;
import io.psmr.scheduler.Scheduler;

/**
 * One scheduler configuration of the demo.
 *
 * @param mode      the label of the conflict detection: {@code sequential}, {@code cbase},
 *                  {@code keys_hashed}, {@code bitmap} or {@code rw_bitmap}
 * @param detection the conflict detection; for {@code sequential}, the one its batches carry
 * @param graph     the dependency graph, or null for the sequential scheduler
 * @param batchSize commands per batch
 * @param workers   worker threads (1 for the sequential scheduler, which executes on the delivery thread)
 */
public record DemoConfig(String mode, ConflictDetection detection, GraphKind graph, int batchSize, int workers) {

    public DemoConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(detection, "detection");
        if (batchSize < 1 || workers < 1) {
            throw new IllegalArgumentException("batch size and workers must be at least 1");
        }
    }

    /** Whether this is the sequential baseline (no graph, no workers). */
    public boolean sequential() {
        return graph == null;
    }

    /** The graph's label: {@code monitor}, {@code indexed}, or {@code none} for the sequential scheduler. */
    public String graphLabel() {
        return graph == null ? "none" : graph.cliName();
    }

    /** Starts a scheduler of this configuration over {@code service}, with the builder's other defaults. */
    public Scheduler<SyntheticCommand, Long> start(SyntheticService service) {
        var builder = Scheduler.builder(service).detection(detection);
        if (sequential()) {
            return builder.sequential().start();
        }
        return builder.graph(graph).workers(workers).threadNamePrefix("psmr-demo-worker-").start();
    }

    /** {@code mode/graph/batch/workers}. */
    @Override
    public String toString() {
        return mode + "/" + graphLabel() + "/" + batchSize + "/" + workers;
    }
}
