package io.psmr.scheduler;

import java.util.Objects;

/**
 * Configures and starts a {@link Scheduler}. Defaults: a 1,024,000-bit Roaring {@link ConflictMode#BITMAP},
 * the {@link GraphKind#SPLIT_INDEXED} graph, one worker per available processor, at most 64 pending
 * batches, summary verification on, results discarded.
 *
 * @param <C> the command type
 * @param <R> the result type
 */
public final class SchedulerBuilder<C extends Command, R> {

    /**
     * Default bound on pending batches. Enough look-ahead to keep workers busy past a conflicting
     * batch (64 batches of 200 commands is 12,800 commands), small enough that the monitor graph's
     * insert, which compares with every pending batch, stays cheap.
     */
    public static final int DEFAULT_MAX_PENDING = 64;

    /** Default number of checks a worker with nothing to take makes before it parks; see {@link #workerSpins}. */
    public static final int DEFAULT_WORKER_SPINS = 0;

    /** Default wake-up policy; see {@link #wakePolicy}. */
    public static final WakePolicy DEFAULT_WAKE_POLICY = WakePolicy.EAGER;

    private final Service<C, R> service;
    private ResultSink<C, R> sink = ResultSink.discarding();
    private ConflictDetection detection = ConflictDetection.bitmap(ConflictDetection.DEFAULT_BITMAP_BITS);
    private GraphKind graph = GraphKind.SPLIT_INDEXED;
    private int workers = Runtime.getRuntime().availableProcessors();
    private int maxPending = DEFAULT_MAX_PENDING;
    private int workerSpins = DEFAULT_WORKER_SPINS;
    private WakePolicy wakePolicy = DEFAULT_WAKE_POLICY;
    private boolean verifySummaries = true;
    private boolean sequential;
    private String threadNamePrefix = "psmr-worker-";

    SchedulerBuilder(Service<C, R> service) {
        this.service = Objects.requireNonNull(service, "service");
    }

    /** Where command outcomes go. */
    public SchedulerBuilder<C, R> resultSink(ResultSink<C, R> sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
        return this;
    }

    /** The conflict detection every delivered summary must match. */
    public SchedulerBuilder<C, R> detection(ConflictDetection detection) {
        this.detection = Objects.requireNonNull(detection, "detection");
        return this;
    }

    /** The dependency graph implementation. */
    public SchedulerBuilder<C, R> graph(GraphKind graph) {
        this.graph = Objects.requireNonNull(graph, "graph");
        return this;
    }

    /** Number of worker threads, at least 1. */
    public SchedulerBuilder<C, R> workers(int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers must be at least 1, got " + workers);
        }
        this.workers = workers;
        return this;
    }

    /** Most batches in the graph (executing ones included) before {@code deliver} blocks; at least 1. */
    public SchedulerBuilder<C, R> maxPending(int maxPending) {
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPending must be at least 1, got " + maxPending);
        }
        this.maxPending = maxPending;
        return this;
    }

    /**
     * How many times a worker that finds no free batch checks again, with a spin-wait hint between
     * checks, before it parks (0: it parks at once). Spinning trades CPU for the wake-up a park costs.
     */
    public SchedulerBuilder<C, R> workerSpins(int spins) {
        if (spins < 0) {
            throw new IllegalArgumentException("workerSpins must be at least 0, got " + spins);
        }
        this.workerSpins = spins;
        return this;
    }

    /**
     * When a batch that becomes free wakes a parked worker (default {@link #DEFAULT_WAKE_POLICY}).
     * It changes no order, only how many thread wake-ups the workers pay; see {@link WakePolicy}.
     */
    public SchedulerBuilder<C, R> wakePolicy(WakePolicy policy) {
        this.wakePolicy = Objects.requireNonNull(policy, "wake policy");
        return this;
    }

    /** Whether {@code deliver} checks that each summary covers its batch's keys (default on). */
    public SchedulerBuilder<C, R> verifySummaries(boolean verify) {
        this.verifySummaries = verify;
        return this;
    }

    /**
     * Classic SMR instead: no graph and no workers; {@code deliver} executes each batch on the
     * calling thread before it returns. The baseline and the physical-limit reference.
     */
    public SchedulerBuilder<C, R> sequential() {
        this.sequential = true;
        return this;
    }

    /** Prefix of worker thread names (default {@code psmr-worker-}). */
    public SchedulerBuilder<C, R> threadNamePrefix(String prefix) {
        this.threadNamePrefix = Objects.requireNonNull(prefix, "prefix");
        return this;
    }

    /** Builds the scheduler and, in parallel mode, starts its workers. */
    public Scheduler<C, R> start() {
        BatchAdmission admission = new BatchAdmission(detection, verifySummaries);
        BatchRunner<C, R> runner = new BatchRunner<>(service, sink);
        if (sequential) {
            return new SequentialScheduler<>(admission, runner);
        }
        return new ParallelScheduler<>(admission, runner, graph.create(detection, maxPending, workerSpins, wakePolicy), workers,
                threadNamePrefix);
    }
}
