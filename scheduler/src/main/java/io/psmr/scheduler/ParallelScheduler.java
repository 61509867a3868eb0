package io.psmr.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Algorithm 1's replica: the delivery thread inserts batches into a {@link DependencyGraph}, and
 * worker threads loop take, execute, remove (lines 43-46).
 *
 * <p>Threads: {@link #deliver} from one delivery thread (serialised by a lock if misused from
 * several); workers are owned by the scheduler and joined by {@link #close} and {@link #abort}.
 * A batch's completion is reported before it leaves the graph, so every outcome of a batch is
 * reported before any batch that depends on it starts.
 */
final class ParallelScheduler<C extends Command, R> implements Scheduler<C, R> {

    private static final Logger LOG = LoggerFactory.getLogger(ParallelScheduler.class);

    private final BatchAdmission admission;
    private final BatchRunner<C, R> runner;
    private final DependencyGraph<C> graph;
    private final List<Thread> workers;
    private final Object deliveryLock = new Object();
    private final LongAdder batchesDelivered = new LongAdder();
    private final LongAdder commandsDelivered = new LongAdder();
    private final LongAdder busyNanos = new LongAdder();
    private final LongAdder idleNanos = new LongAdder();
    private volatile boolean closed;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    ParallelScheduler(BatchAdmission admission, BatchRunner<C, R> runner, DependencyGraph<C> graph, int workerCount,
                      String threadNamePrefix) {
        this.admission = admission;
        this.runner = runner;
        this.graph = graph;
        List<Thread> threads = new ArrayList<>(workerCount);
        for (int i = 0; i < workerCount; i++) {
            Thread t = new Thread(this::workLoop, threadNamePrefix + i);
            t.setDaemon(true);
            threads.add(t);
        }
        this.workers = List.copyOf(threads);
        workers.forEach(Thread::start);
    }

    @Override
    public void deliver(Batch<C> batch) throws InterruptedException {
        synchronized (deliveryLock) {
            if (closed || failure.get() != null) {
                throw closedError();
            }
            String problem = admission.check(batch);
            if (problem != null) {
                runner.reject(batch, problem);
            } else {
                try {
                    graph.insert(batch);
                } catch (IllegalStateException e) {
                    throw closedError();
                }
            }
            admission.recordDelivered(batch);
            batchesDelivered.increment();
            commandsDelivered.add(batch.size());
        }
    }

    private void workLoop() {
        try {
            long t0 = System.nanoTime();
            PendingBatch<C> pending = graph.take();
            while (pending != null) {
                long t1 = System.nanoTime();
                idleNanos.add(t1 - t0);
                try {
                    runner.run(pending.batch());
                } catch (Throwable e) {
                    failStop(e, pending);
                    return;
                }
                t0 = System.nanoTime();
                busyNanos.add(t0 - t1);
                pending = graph.removeAndTake(pending);
            }
        } catch (InterruptedException e) {
            LOG.debug("worker {} interrupted; exiting", Thread.currentThread().getName());
        }
    }

    /**
     * A batch stopped half-way (the service threw something other than a {@link DeterministicFailure},
     * or the sink threw an {@link Error}): this replica's state may now differ from the others', so nothing more may run.
     * The graph is aborted, so no dependent batch starts, and every later call reports the failure.
     */
    private void failStop(Throwable e, PendingBatch<C> pending) {
        if (failure.compareAndSet(null, e)) {
            LOG.error("FAIL-STOP: batch {} stopped half-way on {} ({}); this replica's state may now differ from the "
                    + "other replicas', so it runs nothing more", pending.batch().instance(),
                    Thread.currentThread().getName(), e.toString(), e);
        }
        closed = true;
        graph.abort();
        graph.remove(pending);
    }

    private IllegalStateException closedError() {
        Throwable f = failure.get();
        return f == null
                ? new IllegalStateException("scheduler is closed")
                : new IllegalStateException("scheduler failed and stopped: " + f, f);
    }

    @Override
    public boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
        boolean idle = graph.awaitEmpty(timeout, unit);
        if (failure.get() != null) {
            throw closedError();
        }
        return idle;
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    @Override
    public SchedulerMetrics metrics() {
        return new SchedulerMetrics(workers.size(), batchesDelivered.sum(), commandsDelivered.sum(),
                runner.batchesExecuted.sum(), runner.commandsExecuted.sum(), runner.commandsFailed.sum(),
                runner.batchesRejected.sum(), graph.statistics(), busyNanos.sum(), idleNanos.sum());
    }

    @Override
    public void close() {
        closed = true;
        graph.close();
        joinWorkers();
    }

    @Override
    public List<Batch<C>> abort() {
        closed = true;
        List<Batch<C>> dropped = graph.abort();
        joinWorkers();
        return dropped;
    }

    private void joinWorkers() {
        boolean interrupted = false;
        for (Thread t : workers) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
