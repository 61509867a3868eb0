package io.psmr.kvstore.mlbft;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * MLBFT's execution stage with its threads: {@link PartitionQueues} under one monitor, and one worker per partition
 * (thesis §3.2.5, Algorithm 3.3). A worker runs what {@link PartitionQueues#next} hands it, outside the monitor, then
 * reports it finished; a worker whose head is CROSS-BORDER-SYNC, or an EXEC still waiting for its other queues, waits
 * on the monitor. Deadlocks are found and resolved inside {@link PartitionQueues}, deterministically.
 *
 * <h2>Threads (concurrency contract)</h2>
 * <ul>
 *   <li>{@link #deliver}: one delivery thread per partition (its instance's subscription), in that instance's order;
 *       blocks while the partition's queue is full.</li>
 *   <li>The {@link Runner}: on worker {@code psmr-mlbft-<replica>-worker-<p>}; it may block, and a request of several
 *       partitions runs while the workers of the others wait, so it touches those partitions alone.</li>
 *   <li>Everything else: any thread.</li>
 * </ul>
 * A runner that throws fail-stops the stage ({@link #failure()}): the error is not decided by the order, so the replica
 * stops rather than risk diverging; {@link #deliver} then throws.
 *
 * @param <T> what a request carries
 */
final class MlbftExecutionStage<T> implements AutoCloseable {

    /** Runs one request on a partition worker. */
    @FunctionalInterface
    interface Runner<T> {
        /** Runs {@code request}; it heads every queue of its partitions. */
        void run(PartitionQueues.Request<T> request) throws Exception;
    }

    private final PartitionQueues<T> queues;
    private final Runner<T> runner;
    private final List<Thread> workers = new ArrayList<>();
    private int running; // guarded by this
    private boolean closed; // guarded by this
    private volatile Throwable failure;
    private long crossBorder; // guarded by this
    private long simple; // guarded by this

    MlbftExecutionStage(int partitions, int queueCapacity, Runner<T> runner, String threadPrefix) {
        this.queues = new PartitionQueues<>(partitions, queueCapacity);
        this.runner = runner;
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            Thread t = new Thread(() -> work(partition), threadPrefix + p);
            t.setDaemon(true);
            workers.add(t);
        }
        workers.forEach(Thread::start);
    }

    /**
     * Partition {@code p}'s instance ordered the request {@code key} at {@code instance}; queues it, waiting while the
     * queue is full.
     *
     * @return what the queues did with it (a refusal is decided by the order alone)
     * @throws InterruptedException if interrupted or closed while waiting
     * @throws IllegalStateException if the stage fail-stopped, or a deadlock needs more room than the bound
     */
    synchronized PartitionQueues.Appended deliver(int p, PartitionQueues.Key key, long instance, int[] partitions,
                                                  int execPartition, T payload) throws InterruptedException {
        while (!queues.hasRoom(p)) {
            checkOpen();
            wait();
        }
        checkOpen();
        PartitionQueues.Appended a;
        try {
            a = queues.append(p, key, instance, partitions, execPartition, payload);
        } catch (IllegalStateException e) {
            fail(e);
            throw e;
        }
        notifyAll();
        return a;
    }

    private void checkOpen() throws InterruptedException {
        if (failure != null) {
            throw new IllegalStateException("the MLBFT execution stage stopped: " + failure, failure);
        }
        if (closed) {
            throw new InterruptedException("the MLBFT execution stage is closed");
        }
    }

    private void work(int p) {
        while (true) {
            PartitionQueues.Request<T> r;
            synchronized (this) {
                while ((r = queues.next(p)) == null) {
                    if (closed || failure != null) {
                        return;
                    }
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                running++;
            }
            try {
                runner.run(r);
            } catch (Throwable e) {
                synchronized (this) {
                    running--;
                    fail(e);
                }
                return;
            }
            synchronized (this) {
                running--;
                if (r.crossBorder()) {
                    crossBorder++;
                } else {
                    simple++;
                }
                queues.finished(r);
                notifyAll();
            }
        }
    }

    private synchronized void fail(Throwable e) {
        if (failure == null) {
            failure = e;
        }
        notifyAll();
    }

    /** Waits until every queued request has run. @return false on timeout or if the stage fail-stopped */
    synchronized boolean awaitIdle(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (!(queues.isEmpty() && running == 0)) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || failure != null) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return failure == null;
    }

    /** The counters, with the delivery's refusals the replica counted. */
    synchronized MlbftStats stats(long misrouted, long repeated, long unreadable) {
        int queued = 0;
        for (int p = 0; p < workers.size(); p++) {
            queued += queues.size(p);
        }
        return new MlbftStats(queues.deadlocks(), queues.resolutionDigest(), crossBorder, simple, queued, misrouted, repeated,
                unreadable);
    }

    /** What stopped the stage, if something did. */
    Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /** Stops the workers once they finish what they run; queued requests do not run. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        for (Thread t : workers) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
