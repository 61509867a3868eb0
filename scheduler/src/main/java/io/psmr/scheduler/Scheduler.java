package io.psmr.scheduler;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The execution layer of a replica: takes batches in delivery order and executes their commands
 * through a {@link Service}, in parallel where batches do not conflict, reporting every outcome to
 * a {@link ResultSink}.
 *
 * <p><b>Guarantees.</b> Conflicting batches execute in delivery order; the commands of a batch run
 * in order on one thread. The outcome of every command, and the service's final state, equal those
 * of executing the same batches one by one in delivery order, whatever the worker count or timing.
 *
 * <p><b>Threads.</b> {@link #deliver} is called by one delivery thread, in total order. The other
 * methods may be called from any thread. Create one with {@link #builder(Service)}.
 *
 * @param <C> the command type
 * @param <R> the result type
 */
public interface Scheduler<C extends Command, R> extends AutoCloseable {

    /** A builder for a scheduler over {@code service}. */
    static <C extends Command, R> SchedulerBuilder<C, R> builder(Service<C, R> service) {
        return new SchedulerBuilder<>(service);
    }

    /**
     * Hands over the next batch in total order. Blocks while the dependency graph is full
     * ({@code maxPending} batches). With summary verification on, a batch whose summary misses a
     * key's bit is rejected: each of its commands gets a {@link CommandError.Kind#REJECTED} error
     * naming the missing key, and nothing executes.
     *
     * @throws IllegalArgumentException if the batch is null, its instance is not after the previous
     *                                  one, or its summary has the wrong mode, bitmap size or
     *                                  representation; nothing is executed and the scheduler stays usable
     * @throws IllegalStateException    if the scheduler is closed
     * @throws InterruptedException     if interrupted while waiting for room; the batch was not delivered
     */
    void deliver(Batch<C> batch) throws InterruptedException;

    /**
     * Waits until every delivered batch has executed and been reported.
     *
     * @return false on timeout
     * @throws IllegalStateException if the scheduler failed (see {@link #failure()})
     */
    boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * What stopped the scheduler, if something did. A batch that stops half-way, because the service
     * threw anything but a {@link DeterministicFailure} (an exception it did not declare deterministic,
     * a {@link VirtualMachineError}) or the result sink threw an {@link Error}, leaves this replica's
     * state in doubt; the scheduler then fail-stops: it drops every batch not yet started, lets running
     * ones finish, and refuses further deliveries with an {@link IllegalStateException} that carries
     * this cause. A {@link DeterministicFailure} is not a failure of the scheduler: it becomes a
     * {@link CommandError.Kind#FAILED} result.
     */
    Optional<Throwable> failure();

    /** A snapshot of the counters. */
    SchedulerMetrics metrics();

    /** Stops accepting batches, executes those pending, and joins the workers. Idempotent. */
    @Override
    void close();

    /**
     * Stops accepting batches and drops those not yet started; batches already executing finish.
     * Joins the workers.
     *
     * @return the dropped batches in delivery order; their commands were not executed or reported
     */
    List<Batch<C>> abort();
}
