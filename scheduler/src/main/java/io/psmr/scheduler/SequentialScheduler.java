package io.psmr.scheduler;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Classic SMR: no dependency graph and no workers. {@link #deliver} executes the batch on the
 * delivery thread, in delivery order, before it returns. This is the baseline every parallel
 * configuration is compared with, and, times the usable cores, the physical limit.
 */
final class SequentialScheduler<C extends Command, R> implements Scheduler<C, R> {

    private static final Logger LOG = LoggerFactory.getLogger(SequentialScheduler.class);

    private static final GraphStatistics NO_GRAPH = new GraphStatistics(0, 0, 0, 0, 0, 0, 0, 0);

    private final BatchAdmission admission;
    private final BatchRunner<C, R> runner;
    private long batchesDelivered;
    private long commandsDelivered;
    private long busyNanos;
    private volatile boolean closed;
    private volatile Throwable failure;

    SequentialScheduler(BatchAdmission admission, BatchRunner<C, R> runner) {
        this.admission = admission;
        this.runner = runner;
    }

    @Override
    public synchronized void deliver(Batch<C> batch) {
        if (closed) {
            Throwable f = failure;
            throw f == null
                    ? new IllegalStateException("scheduler is closed")
                    : new IllegalStateException("scheduler failed and stopped: " + f, f);
        }
        String problem = admission.check(batch);
        admission.recordDelivered(batch);
        batchesDelivered++;
        commandsDelivered += batch.size();
        if (problem != null) {
            runner.reject(batch, problem);
            return;
        }
        long t0 = System.nanoTime();
        try {
            runner.run(batch);
        } catch (Throwable e) {
            // The batch stopped half-way: nothing more may run (see ParallelScheduler.failStop).
            LOG.error("FAIL-STOP: batch {} stopped half-way ({}); this replica's state may now differ from the "
                    + "other replicas', so it runs nothing more", batch.instance(), e.toString(), e);
            failure = e;
            closed = true;
            throw e;
        }
        busyNanos += System.nanoTime() - t0;
    }

    @Override
    public boolean awaitIdle(long timeout, TimeUnit unit) {
        return true;
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public synchronized SchedulerMetrics metrics() {
        return new SchedulerMetrics(1, batchesDelivered, commandsDelivered, runner.batchesExecuted.sum(),
                runner.commandsExecuted.sum(), runner.commandsFailed.sum(), runner.batchesRejected.sum(),
                NO_GRAPH, busyNanos, 0);
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public List<Batch<C>> abort() {
        closed = true;
        return List.of();
    }
}
