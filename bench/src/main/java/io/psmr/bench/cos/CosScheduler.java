package io.psmr.bench.cos;

import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.CommandError;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.DeterministicFailure;
import io.psmr.scheduler.KeyListSummary;
import io.psmr.scheduler.ResultSink;
import io.psmr.scheduler.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's execution layer over a {@link CosGraph}, as in Escobar, Alchieri, Dotti, Pedone et al.,
 * "Boosting concurrency in Parallel State Machine Replication" (Middleware '19): commands are
 * scheduled one at a time (no batches); the delivery thread inserts each into the graph, and
 * worker threads loop get, execute, report, remove. The baseline that {@code psmr bench} compares
 * psmr's batch-and-bitmap scheduler with.
 *
 * <p><b>Guarantees.</b> Conflicting commands execute in delivery order, so every result and the
 * final state equal those of executing the commands one by one in delivery order.
 *
 * <p><b>Reporting.</b> Each command is reported to the {@link ResultSink} as a batch of one: instance =
 * its delivery sequence number (from 1), index 0. {@link ResultSink#onResult} (or {@link ResultSink#onError}
 * for a {@link DeterministicFailure}), then {@link ResultSink#onBatchComplete}, both before the command
 * leaves the graph, so every outcome is reported before any command that depends on it starts. The
 * batch's summary is an empty key list: COS compares the commands' keys itself.
 *
 * <p><b>Fail-stop</b>, as psmr's parallel scheduler: if the service throws anything other than a
 * {@link DeterministicFailure} (or the sink throws an {@link Error}), the graph is aborted, nothing more
 * runs, and {@link #deliver} refuses with an {@link IllegalStateException} carrying the cause
 * ({@link #failure()}).
 *
 * <p><b>Threads.</b> {@link #deliver} is called by one delivery thread and blocks while the graph holds
 * {@code maxSize} commands. The workers are owned by the scheduler. {@link #close} (the delivery thread,
 * after its last deliver) drains the graph and joins the workers; {@link #failure()} and the counters
 * may be read from any thread.
 *
 * @param <C> the command type
 * @param <R> the result type
 */
public final class CosScheduler<C extends Command, R> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CosScheduler.class);
    private static final ConflictSummary NO_SUMMARY = new KeyListSummary(List.of());

    private final CosGraph<C> graph;
    private final Service<C, R> service;
    private final ResultSink<C, R> sink;
    private final List<Thread> workers;
    private final LongAdder executed = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean closed;

    /**
     * Starts {@code workers} worker threads over a new, empty graph of {@code variant}.
     *
     * @param maxSize most commands in the graph before {@link #deliver} blocks
     * @throws IllegalArgumentException if {@code workers < 1} or {@code maxSize < 1}, or an argument is null
     */
    public CosScheduler(CosVariant variant, Service<C, R> service, ResultSink<C, R> sink, int workers, int maxSize,
                        String threadNamePrefix) {
        if (variant == null || service == null || sink == null || threadNamePrefix == null) {
            throw new IllegalArgumentException("COS scheduler needs a variant, a service, a sink and a thread name prefix");
        }
        if (workers < 1) {
            throw new IllegalArgumentException("COS workers must be at least 1, got " + workers);
        }
        this.graph = variant.newGraph(maxSize);
        this.service = service;
        this.sink = sink;
        List<Thread> threads = new ArrayList<>(workers);
        for (int i = 0; i < workers; i++) {
            Thread t = new Thread(this::workLoop, threadNamePrefix + i);
            t.setDaemon(true);
            threads.add(t);
        }
        this.workers = List.copyOf(threads);
        this.workers.forEach(Thread::start);
    }

    /**
     * Hands over the next command in delivery order; blocks while the graph is full.
     *
     * @return the command's delivery sequence number (its instance in the sink), from 1
     * @throws IllegalStateException if the scheduler is closed or failed
     * @throws InterruptedException  if interrupted while waiting for room; the command was not delivered
     */
    public long deliver(C command) throws InterruptedException {
        if (closed || failure.get() != null) {
            throw closedError();
        }
        try {
            return graph.insert(command);
        } catch (IllegalStateException e) {
            throw closedError();
        }
    }

    private void workLoop() {
        try {
            CosGraph.Handle<C> h;
            while ((h = graph.get()) != null) {
                try {
                    run(h);
                } catch (Throwable e) {
                    failStop(e, h);
                    return;
                }
                graph.remove(h);
            }
        } catch (InterruptedException e) {
            LOG.debug("COS worker {} interrupted; exiting", Thread.currentThread().getName());
        }
    }

    private void run(CosGraph.Handle<C> h) {
        C command = h.command();
        long instance = h.sequence();
        try {
            R result = service.execute(command);
            report(() -> sink.onResult(instance, 0, command, result));
        } catch (DeterministicFailure e) {
            report(() -> sink.onError(instance, 0, command, new CommandError(CommandError.Kind.FAILED,
                    "command " + instance + " failed: " + e.getMessage())));
        } catch (Error | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("command " + instance + " threw " + e
                    + ", which the service did not declare deterministic", e);
        }
        executed.increment();
        report(() -> sink.onBatchComplete(new Batch<>(instance, List.of(command), NO_SUMMARY)));
    }

    /** A sink's runtime exception is logged and ignored, as psmr's scheduler does; an Error fail-stops. */
    private static void report(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.error("result sink threw", e);
        }
    }

    private void failStop(Throwable e, CosGraph.Handle<C> h) {
        if (failure.compareAndSet(null, e)) {
            LOG.error("FAIL-STOP: command {} stopped half-way on {} ({}); this replica's state may now differ "
                    + "from the other replicas', so it runs nothing more", h.sequence(),
                    Thread.currentThread().getName(), e.toString(), e);
        }
        closed = true;
        graph.abort();
        graph.remove(h);
    }

    private IllegalStateException closedError() {
        Throwable f = failure.get();
        return f == null
                ? new IllegalStateException("COS scheduler is closed")
                : new IllegalStateException("COS scheduler failed and stopped: " + f, f);
    }

    /** What stopped the scheduler, if something did (see the class comment). */
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    /** Commands executed so far (including deterministic failures). */
    public long executed() {
        return executed.sum();
    }

    /** Commands in the graph now: delivered and not yet removed. */
    public int graphSize() {
        return graph.size();
    }

    /** Refuses further commands, executes those in the graph, and joins the workers. Idempotent. */
    @Override
    public void close() {
        closed = true;
        graph.close();
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
