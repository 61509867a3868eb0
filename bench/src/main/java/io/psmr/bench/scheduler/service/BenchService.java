package io.psmr.bench.scheduler.service;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.Service;
import java.util.List;

/**
 * What a {@code psmr bench} run drives: a service, with a workload's batches in that service's
 * command type. The sequential reference and every scheduler run of one invocation use the same one.
 *
 * <p><b>Threads.</b> {@link #batches} is called by the benchmark's thread, before timing (the
 * first call per workload may build); {@link #service()}'s {@code execute} by the delivery thread
 * (sequential) or the scheduler's workers.
 *
 * @param <C> the command type
 * @param <R> the result type
 */
public interface BenchService<C extends Command, R> extends AutoCloseable {

    /** The service commands run through, with the configured extra work per command. */
    Service<C, R> service();

    /**
     * The cycle of {@code workload} as this service's commands, batch by batch: the same keys, in the
     * same order, with the same footprint as the workload's key-value commands.
     */
    List<List<C>> batches(BenchWorkload workload);

    /** A number from {@code result}, summed by the sequential loop so that results stay observably used. */
    int observe(R result);


    /** Releases the store. */
    @Override
    void close();
}
