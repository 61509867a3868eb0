package io.psmr.bench.scheduler;

import io.psmr.scheduler.SchedulerMode;
import io.psmr.bench.cos.CosScheduler;
import io.psmr.bench.cos.CosVariant;
import io.psmr.bench.stats.FreshThread;
import io.psmr.bench.stats.RunStatistics;
import io.psmr.bench.scheduler.service.BenchService;
import io.psmr.bench.scheduler.service.BenchStore;
import io.psmr.bench.scheduler.service.ServiceKind;
import io.psmr.bench.scheduler.service.BusyWork;
import io.psmr.bench.scheduler.service.KvBenchService;
import io.psmr.bench.scheduler.service.MapBenchService;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.CommandError;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.GraphStatistics;
import io.psmr.scheduler.ResultSink;
import io.psmr.scheduler.Scheduler;
import io.psmr.scheduler.Service;
import io.psmr.scheduler.SummaryBuilder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The scheduler benchmark of issue 5 (the paper's Fig. 4 and Fig. 5): pre-built, pre-summarised
 * key-value batches pushed at saturation by one delivery thread into a scheduler that runs the
 * real {@code KvService} on Chronicle Map (or, for comparison, a bare map service).
 *
 * <p><b>What is timed.</b> Each run starts a fresh scheduler over the one shared store, delivers
 * batches from the cell's cycle as fast as {@code deliver} accepts them for {@link BenchSettings#duration()},
 * and counts the commands whose batch completed between the end of the ramp (the first tenth)
 * and the end of the run (which waits, past the duration, for the window's first completed batch:
 * {@link #windowDone}). Decoding is not timed: batches arrive decoded, with their summaries, as
 * a replica hands them to its scheduler after its own decode step. A sequential cell runs the same
 * batches on the delivery thread through the same service's {@code execute}, with no scheduler: the limit reference.
 *
 * <p><b>Service</b> ({@link BenchSettings#service()}): the key-value service, or one
 * {@code ConcurrentHashMap} get or merge per command ({@link MapBenchService}), each with optional
 * {@link BusyWork} per command. <b>Summaries</b> ({@link Cell#summaryTimed()}): built before timing, or
 * inside the timed loop by a {@link SummaryStage} thread ahead of the delivery thread, as a replica's decode path.
 *
 * <p><b>Order.</b> One warm-up run of every cell, then {@link BenchSettings#runs()} rounds, each
 * running every cell once, so that drift in the machine's speed hits all cells alike.
 */
public final class SchedulerBench {

    private final BenchSettings settings;
    private final Map<String, BenchWorkload> workloads = new HashMap<>();
    private final Map<String, ConflictSummary[]> summaries = new HashMap<>();
    private final Map<String, PartitionedRun.Split<?>> splits = new HashMap<>();

    public SchedulerBench(BenchSettings settings) {
        this.settings = settings;
    }

    /**
     * The cells to run: the requested matrix plus the references its columns need (the sequential
     * cell of every batch size and conflict level, CBASE at every worker count and conflict level, and
     * the {@code partitioned} ceiling of every batch size, worker count and conflict level).
     * Each parallel cell, CBASE included, comes in the summary settings {@link BenchSettings#summaries()}
     * asks for: with {@link SummaryTiming#BOTH} twice, pre then timed, side by side.
     */
    public List<Cell> plan() {
        Set<Cell> cells = new LinkedHashSet<>();
        for (int conflict : settings.conflicts()) {
            for (int batch : settings.batches()) {
                cells.add(new Cell(SchedulerMode.SEQUENTIAL, batch, 1, conflict));
            }
            cells.add(new Cell(SchedulerMode.SEQUENTIAL, 1, 1, conflict));
            for (int workers : settings.workers()) {
                cells.add(new Cell(SchedulerMode.CBASE, 1, workers, conflict));
            }
            for (int batch : settings.batches()) {
                addPartitionedCells(cells, batch, conflict);
            }
            addPartitionedCells(cells, 1, conflict);
            addCosCells(cells, conflict);
            for (int batch : settings.batches()) {
                for (BenchMode benchMode : settings.modes()) {
                    if (!(benchMode instanceof BenchMode.Psmr psmr)) {
                        continue; // the COS baselines, above
                    }
                    SchedulerMode mode = psmr.mode();
                    if (mode == SchedulerMode.SEQUENTIAL || mode == SchedulerMode.CBASE) {
                        continue; // the references above
                    }
                    // keys-pairwise in batches of one is cbase, already planned.
                    SchedulerMode m = mode == SchedulerMode.KEYS_PAIRWISE && batch == 1 ? SchedulerMode.CBASE : mode;
                    BenchMode planned = m == mode ? psmr : BenchMode.of(m);
                    for (int workers : settings.workers()) {
                        cells.add(new Cell(planned, m.batch(batch), workers, conflict, false));
                    }
                }
            }
        }
        return withTwins(withSummaryTiming(cells, settings.summaries()), settings);
    }

    /**
     * {@code cells}, each followed by its twin on every A/B store ({@link BenchSettings#twinStores()}), side by
     * side; the key-value service only (the map service has no store).
     */
    static List<Cell> withTwins(List<Cell> cells, BenchSettings settings) {
        if (settings.service() != ServiceKind.KV || settings.twinStores().isEmpty()) {
            return cells;
        }
        List<Cell> out = new ArrayList<>();
        for (Cell c : cells) {
            out.add(c);
            for (BenchStore twin : settings.twinStores()) {
                out.add(c.on(twin));
            }
        }
        return List.copyOf(out);
    }

    /** {@code cells} with each cell that builds summaries in every summary setting of {@code timing}, in order. */
    static List<Cell> withSummaryTiming(Iterable<Cell> cells, SummaryTiming timing) {
        List<Cell> out = new ArrayList<>();
        for (Cell c : cells) {
            if (!c.buildsSummaries()) {
                out.add(c); // sequential and COS cells build no summaries: one cell whatever the setting
                continue;
            }
            for (boolean timed : timing.timedFlags()) {
                out.add(new Cell(c.mode(), c.batch(), c.workers(), c.conflictPct(), timed));
            }
        }
        return List.copyOf(out);
    }

    /** The {@code partitioned} ceiling of the stream of {@code batch} and {@code conflict} at every worker count. */
    private void addPartitionedCells(Set<Cell> cells, int batch, int conflict) {
        for (int workers : settings.workers()) {
            cells.add(new Cell(BenchMode.partitioned(), batch, workers, conflict));
        }
    }

    /**
     * The COS baselines asked for, beside CBASE: batches of one (the same command stream as CBASE)
     * at every worker count.
     */
    private void addCosCells(Set<Cell> cells, int conflict) {
        for (BenchMode benchMode : settings.modes()) {
            if (benchMode instanceof BenchMode.Cos) {
                for (int workers : settings.workers()) {
                    cells.add(new Cell(benchMode, 1, workers, conflict));
                }
            }
        }
    }

    /** Total runs {@link #run} makes: a warm-up and the measured runs per cell. */
    public int totalRuns() {
        return plan().size() * (1 + settings.runs());
    }

    /**
     * Runs every cell. {@code afterRun} is called after each run (warm-up included) with the cell,
     * for progress reporting.
     */
    public List<CellResult> run(Consumer<Cell> afterRun) throws InterruptedException {
        List<Cell> cells = plan();
        int keys = 0;
        for (int batch : settings.batches()) {
            keys = Math.max(keys, BenchWorkload.keysNeeded(batch, settings.maxPending()));
        }
        keys = Math.max(keys, BenchWorkload.keysNeeded(1, settings.maxPending()));
        Map<BenchStore, BenchService<?, ?>> services = new java.util.EnumMap<>(BenchStore.class);
        try {
            List<BenchStore> stores = settings.service() == ServiceKind.KV ? settings.stores() : List.of(settings.store());
            for (BenchStore store : stores) {
                services.put(store, openService(settings, store, keys));
            }
            return runCells(cells, services, afterRun);
        } finally {
            services.values().forEach(BenchService::close);
        }
    }

    /**
     * The service of {@code settings.service()} for workloads of up to {@code keys} keys, populated,
     * with {@code settings.workNanos()} of {@link BusyWork} per command; the key-value service on {@code store}.
     */
    public static BenchService<?, ?> openService(BenchSettings settings, BenchStore store, int keys) {
        BusyWork work = BusyWork.of(settings.workNanos());
        return switch (settings.service()) {
            case KV -> KvBenchService.open(keys, store, work);
            case MAP -> new MapBenchService(keys, work);
        };
    }

    /** The service of {@code settings.service()} on the first store, as {@link #openService(BenchSettings, BenchStore, int)}. */
    public static BenchService<?, ?> openService(BenchSettings settings, int keys) {
        return openService(settings, settings.store(), keys);
    }

    @SuppressWarnings("unchecked")
    private <C extends Command, R> List<CellResult> runCells(List<Cell> cells, Map<BenchStore, BenchService<?, ?>> open,
                                                              Consumer<Cell> afterRun) throws InterruptedException {
        // Every store's service takes the same command type: the key-value service's, or the map's alone.
        Map<BenchStore, BenchService<C, R>> services = new java.util.EnumMap<>(BenchStore.class);
        open.forEach((store, service) -> services.put(store, (BenchService<C, R>) service));
        java.util.function.Function<Cell, BenchService<C, R>> serviceOf =
                c -> services.get(c.twinStore() == null ? settings.store() : c.twinStore());
        Map<Cell, List<RunSample>> samples = new HashMap<>();
        for (Cell c : cells) {
            prepare(c, serviceOf.apply(c));
        }
        for (Cell c : cells) {
            runOnce(c, serviceOf.apply(c), settings.warmup().toNanos());
            afterRun.accept(c);
        }
        for (int round = 0; round < settings.runs(); round++) {
            for (Cell c : cells) {
                samples.computeIfAbsent(c, k -> new ArrayList<>())
                        .add(runOnce(c, serviceOf.apply(c), settings.duration().toNanos()));
                afterRun.accept(c);
            }
        }
        BenchService<C, R> service = serviceOf.apply(cells.get(0));
        Map<Cell, Long> leftOut = new HashMap<>();
        for (Cell c : cells) {
            if (c.isPartitioned()) {
                leftOut.put(c, split(c, service).leftOut());
            }
        }
        return summarise(cells, samples, settings.cores(), leftOut);
    }

    /** Cells of one batch size and conflict level share one workload. */
    private static String workloadKey(Cell c) {
        return c.batch() + "/" + c.conflictPct();
    }

    private BenchWorkload workload(Cell c) {
        return workloads.computeIfAbsent(workloadKey(c),
                k -> BenchWorkload.build(c.batch(), c.conflictPct(), settings.maxPending(), settings.seed()));
    }

    private <C extends Command> ConflictSummary[] summariesOf(Cell c, BenchService<C, ?> service) {
        return summaries.computeIfAbsent(c.batch() + "/" + c.conflictPct() + "/" + c.psmrMode().conflictMode(),
                k -> summaries(service.batches(workload(c)), c.psmrMode().detection(settings.bitmapBits())));
    }

    /** The summaries of {@code batches} under {@code detection}, in order. */
    static ConflictSummary[] summaries(List<? extends List<? extends Command>> batches, ConflictDetection detection) {
        ConflictSummary[] s = new ConflictSummary[batches.size()];
        SummaryBuilder builder = new SummaryBuilder(detection);
        for (int i = 0; i < s.length; i++) {
            for (Command c : batches.get(i)) {
                builder.add(c);
            }
            s[i] = builder.build();
        }
        return s;
    }

    /** The cycle of {@code c}'s workload split by key over its worker count, made once per cell. */
    @SuppressWarnings("unchecked")
    private <C extends Command> PartitionedRun.Split<C> split(Cell c, BenchService<C, ?> service) {
        return (PartitionedRun.Split<C>) splits.computeIfAbsent(c.batch() + "/" + c.conflictPct() + "/" + c.workers(),
                k -> PartitionedRun.split(service.batches(workload(c)), c.workers()));
    }

    private void prepare(Cell c, BenchService<?, ?> service) {
        boolean fresh = !workloads.containsKey(workloadKey(c));
        service.batches(workload(c));
        if (fresh) {
            settleHeap();
        }
        if (c.isPartitioned()) {
            split(c, service);
        }
        if (c.buildsSummaries() && !c.summaryTimed()) {
            summariesOf(c, service);
        }
    }

    /** For the debug line: the delivery thread's CPU time. */
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * Moves a workload just built out of the young generation while only its batches refer to its commands, so
     * that they lie in memory in delivery order for every cell. A young collection copies live objects in the
     * order it reaches them, and once the partitioned split's streams also referred to the commands, which of
     * the two it reached first decided whether the commands lay in stream order or in batch order: in one
     * invocation on 2 cores the two partition threads ran 0.80 of the limit on one conflict level and 0.96 on
     * the other, and the sequential reference moved 9 % the other way. A full collection compacts by sliding,
     * which keeps that order.
     */
    private static void settleHeap() {
        System.gc();
    }

    /** How long past its duration a run may go on waiting for its window's first completed batch. */
    static final long STALL_NANOS = 30_000_000_000L;

    /**
     * Whether a run past its duration may end its measured window: only once the window holds a completed batch.
     * A pause of the whole JVM (a collection, the JIT) longer than a short run's window would otherwise end the
     * window before any worker ran in it, and report 0 for a scheduler that never stalled. Real runs (seconds,
     * thousands of batches) never wait here.
     *
     * @throws IllegalStateException naming the cell if no batch completed for {@link #STALL_NANOS} past the duration
     */
    static boolean windowDone(long completed, long atWindowStart, long elapsedNanos, long durationNanos, Cell c) {
        if (completed > atWindowStart) {
            return true;
        }
        if (elapsedNanos - durationNanos > STALL_NANOS) {
            throw new IllegalStateException(c.describe() + ": no batch completed in " + (elapsedNanos / 1_000_000)
                    + " ms of a " + (durationNanos / 1_000_000) + " ms run: the scheduler made no progress");
        }
        return false;
    }

    private <C extends Command, R> RunSample runOnce(Cell c, BenchService<C, R> service, long durationNanos)
            throws InterruptedException {
        if (c.isPartitioned()) {
            return PartitionedRun.run(c, split(c, service), service, durationNanos);
        }
        if (c.isCos()) {
            return runCos(c, service, durationNanos);
        }
        return c.mode().parallel() ? runParallel(c, service, durationNanos) : runSequential(c, service, durationNanos);
    }

    /** A sequential cell, on a thread of its own started for the run ({@link FreshThread}), as a scheduler's workers are. */
    private <C extends Command, R> RunSample runSequential(Cell c, BenchService<C, R> bench, long durationNanos)
            throws InterruptedException {
        return FreshThread.call("psmr-bench-sequential", () -> runSequentialHere(c, bench, durationNanos));
    }

    private <C extends Command, R> RunSample runSequentialHere(Cell c, BenchService<C, R> bench, long durationNanos) {
        List<List<C>> batches = bench.batches(workload(c));
        Service<C, R> service = bench.service();
        Histogram latency = new Histogram(3);
        int cycle = batches.size();
        long rampNanos = durationNanos / 10;
        long start = System.nanoTime();
        long now = start;
        long c0 = 0;
        long t0 = 0;
        long completed = 0;
        boolean measuring = false;
        int sink = 0;
        int idx = 0;
        while (true) {
            List<C> commands = batches.get(idx);
            if (++idx == cycle) {
                idx = 0;
            }
            sink += executeBatch(bench, service, commands);
            completed += commands.size();
            long t = System.nanoTime();
            if (measuring) {
                latency.recordValue(t - now);
            }
            now = t;
            if (!measuring && now - start >= rampNanos) {
                measuring = true;
                c0 = completed;
                t0 = now;
            } else if (measuring && now - start >= durationNanos && windowDone(completed, c0, now - start, durationNanos, c)) {
                break;
            }
        }
        if (sink == Integer.MIN_VALUE) {
            System.err.print(""); // keeps the results observably used
        }
        return new RunSample((completed - c0) * 1e9 / (now - t0), 0, latency);
    }

    /**
     * Runs one batch's commands through {@code service}: a method called once per batch, as a worker calls its
     * batch runner, so that the JIT compiles both alike rather than this loop only through on-stack replacement.
     */
    private static <C extends Command, R> int executeBatch(BenchService<C, R> bench, Service<C, R> service,
                                                           List<C> commands) {
        int sink = 0;
        for (int i = 0, n = commands.size(); i < n; i++) {
            sink += bench.observe(execute(service, commands.get(i)));
        }
        return sink;
    }

    private static <C extends Command, R> R execute(Service<C, R> service, C command) {
        try {
            return service.execute(command);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the service failed on " + command, e);
        }
    }

    private <C extends Command, R> RunSample runParallel(Cell c, BenchService<C, R> bench, long durationNanos)
            throws InterruptedException {
        List<List<C>> batches = bench.batches(workload(c));
        ConflictDetection detection = c.psmrMode().detection(settings.bitmapBits());
        ConflictSummary[] sums = c.summaryTimed() ? null : summariesOf(c, bench);
        BenchSink<C, R> sink = new BenchSink<>(settings.maxPending());
        int cycle = batches.size();
        long rampNanos = durationNanos / 10;
        long created = System.nanoTime();
        Scheduler<C, R> scheduler = Scheduler.builder(bench.service())
                .detection(detection)
                .graph(c.graph())
                .workerSpins(c.workerSpins())
                .wakePolicy(c.wakePolicy())
                .workers(c.workers())
                .maxPending(settings.maxPending())
                .verifySummaries(settings.verify())
                .resultSink(sink)
                .threadNamePrefix("psmr-bench-worker-")
                .start();
        long t0 = 0;
        long t1;
        long c0 = 0;
        long c1;
        GraphStatistics g0 = null;
        GraphStatistics g1;
        long cpu0 = 0;
        long delivered0 = 0;
        // Timed: built by a summary stage ahead of the delivery thread, as a replica decodes ahead of it; else prepared.
        SummaryStage<C> decode = null;
        try {
            if (c.summaryTimed()) {
                decode = new SummaryStage<>(batches, detection, settings.maxPending());
            }
            long start = System.nanoTime();
            long now = start;
            long instance = 0;
            int idx = 0;
            boolean measuring = false;
            while (true) {
                instance++;
                sink.stamp(instance, now);
                List<C> commands = batches.get(idx);
                ConflictSummary summary = decode == null ? sums[idx] : decode.next();
                scheduler.deliver(new Batch<>(instance, commands, summary));
                if (++idx == cycle) {
                    idx = 0;
                }
                now = System.nanoTime();
                if (!measuring && now - start >= rampNanos) {
                    g0 = scheduler.metrics().graph();
                    cpu0 = THREADS.getCurrentThreadCpuTime();
                    delivered0 = instance;
                    c0 = sink.completed.sum();
                    t0 = System.nanoTime();
                    sink.measuring = true;
                    measuring = true;
                } else if (measuring && now - start >= durationNanos && windowDone(sink.completed.sum(), c0, now - start, durationNanos, c)) {
                    c1 = sink.completed.sum();
                    t1 = System.nanoTime();
                    sink.measuring = false;
                    io.psmr.scheduler.SchedulerMetrics sm = scheduler.metrics();
                    g1 = sm.graph();
                    if (Boolean.getBoolean("psmr.bench.debug")) {
                        long inWindow = Math.max(1, instance - delivered0);
                        System.err.printf("%s: utilisation %.3f busy %d ms idle %d ms; delivery thread %.2f us CPU per batch%n",
                                c.describe(), sm.workerUtilisation(), sm.workerBusyNanos() / 1_000_000,
                                sm.workerIdleNanos() / 1_000_000, (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e3 / inWindow);
                    }
                    break;
                }
            }
        } finally {
            scheduler.close();
            if (decode != null) {
                decode.close();
            }
        }
        double window = t1 - t0;
        // GraphStatistics.meanSize is time-weighted since the graph was made (at 'created', to a few
        // microseconds); the difference of the two integrals is the window's.
        double integral1 = g1.meanSize() * (t1 - created);
        double integral0 = g0.meanSize() * (t0 - created);
        double avgGraph = Math.max(0, (integral1 - integral0) / window);
        return new RunSample((c1 - c0) * 1e9 / window, avgGraph, sink.latency.getIntervalHistogram());
    }

    /**
     * A COS cell: the cell's commands (batches of one, as CBASE gets them) delivered one at a time into a
     * {@link CosScheduler} of the cell's variant over the same service, bounded by {@code maxPending}
     * commands. Timed as {@link #runParallel}; the graph size is the mean, over every 16th delivery in
     * the window, of commands delivered and not yet completed.
     */
    private <C extends Command, R> RunSample runCos(Cell c, BenchService<C, R> bench, long durationNanos)
            throws InterruptedException {
        List<List<C>> batches = bench.batches(workload(c));
        CosVariant variant = ((BenchMode.Cos) c.mode()).variant();
        BenchSink<C, R> sink = new BenchSink<>(settings.maxPending());
        int cycle = batches.size();
        long rampNanos = durationNanos / 10;
        long t0 = 0;
        long t1;
        long c0 = 0;
        long c1;
        double sizeSum = 0;
        long sizeSamples = 0;
        CosScheduler<C, R> scheduler = new CosScheduler<>(variant, bench.service(), sink, c.workers(),
                settings.maxPending(), "psmr-bench-" + variant.cliName() + "-");
        try {
            long start = System.nanoTime();
            long now = start;
            long instance = 0;
            int idx = 0;
            boolean measuring = false;
            while (true) {
                List<C> commands = batches.get(idx);
                for (int i = 0, n = commands.size(); i < n; i++) {
                    instance++;
                    sink.stamp(instance, now);
                    scheduler.deliver(commands.get(i)); // its sequence number is 'instance'
                }
                if (++idx == cycle) {
                    idx = 0;
                }
                now = System.nanoTime();
                if (measuring && (instance & 15) == 0) {
                    sizeSum += instance - sink.completed.sum();
                    sizeSamples++;
                }
                if (!measuring && now - start >= rampNanos) {
                    c0 = sink.completed.sum();
                    t0 = System.nanoTime();
                    sink.measuring = true;
                    measuring = true;
                } else if (measuring && now - start >= durationNanos && windowDone(sink.completed.sum(), c0, now - start, durationNanos, c)) {
                    c1 = sink.completed.sum();
                    t1 = System.nanoTime();
                    sink.measuring = false;
                    break;
                }
            }
        } finally {
            scheduler.close();
        }
        double avgGraph = sizeSamples == 0 ? 0 : Math.max(0, sizeSum / sizeSamples);
        return new RunSample((c1 - c0) * 1e9 / (t1 - t0), avgGraph, sink.latency.getIntervalHistogram());
    }

    /** Counts completed commands and records batch latency; called by the workers. */
    private static final class BenchSink<C extends Command, R> implements ResultSink<C, R> {
        final LongAdder completed = new LongAdder();
        final Recorder latency = new Recorder(3);
        final long[] deliveredAt;
        final int mask;
        volatile boolean measuring;

        BenchSink(int maxPending) {
            // Instance i's slot is rewritten for instance i + ring only after i left the graph
            // (the graph holds at most maxPending batches), so ring > maxPending + 1 suffices.
            int ring = Integer.highestOneBit(2 * maxPending + 2) << 1;
            deliveredAt = new long[ring];
            mask = ring - 1;
        }

        void stamp(long instance, long nanos) {
            // Published to the worker by the graph's lock, inside deliver.
            deliveredAt[(int) (instance & mask)] = nanos;
        }

        @Override
        public void onResult(long instance, int index, C command, R result) {
        }

        @Override
        public void onError(long instance, int index, C command, CommandError error) {
        }

        @Override
        public void onBatchComplete(Batch<C> batch) {
            completed.add(batch.size());
            if (measuring) {
                // nanoTime read on two cores may step back by a little on a virtual machine: a command
                // done within that step reads as negative, recorded as 0.
                latency.recordValue(Math.max(0, System.nanoTime() - deliveredAt[(int) (batch.instance() & mask)]));
            }
        }
    }

    /**
     * Per round, {@code cell}'s throughput over {@code reference}'s in the same round (rounds run every cell
     * once, in plan order, so each pair ran close together); null without a reference.
     */
    static RunStatistics pairedFractions(List<RunSample> cell, List<RunSample> reference) {
        if (reference == null || reference.isEmpty()) {
            return null;
        }
        int n = Math.min(cell.size(), reference.size());
        double[] f = new double[n];
        for (int i = 0; i < n; i++) {
            f[i] = cell.get(i).throughputCps() / reference.get(i).throughputCps();
        }
        return RunStatistics.of(f);
    }

    /**
     * Medians, ratios, limit and ceiling fractions of every cell. {@code leftOut}: per partitioned cell,
     * the commands its split left out (absent: 0).
     */
    static List<CellResult> summarise(List<Cell> cells, Map<Cell, List<RunSample>> samples, int cores,
                                      Map<Cell, Long> leftOut) {
        Map<Cell, RunStatistics> cps = new HashMap<>();
        for (Cell c : cells) {
            cps.put(c, RunStatistics.of(samples.get(c), RunSample::throughputCps));
        }
        List<CellResult> out = new ArrayList<>();
        for (Cell c : cells) {
            List<RunSample> s = samples.get(c);
            RunStatistics thr = cps.get(c);
            double med = thr.median();
            // References on the same store as the cell.
            RunStatistics cbase = cps.get(new Cell(SchedulerMode.CBASE, 1, c.workers(), c.conflictPct(), c.summaryTimed())
                    .on(c.twinStore()));
            RunStatistics seq = cps.get(new Cell(SchedulerMode.SEQUENTIAL, c.batch(), 1, c.conflictPct()).on(c.twinStore()));
            Cell ceilingCell = new Cell(BenchMode.partitioned(), c.batch(), c.workers(), c.conflictPct()).on(c.twinStore());
            RunStatistics ceiling = c.mode().parallel() && !c.isPartitioned()
                    ? pairedFractions(s, samples.get(ceilingCell))
                    : null;
            double ratio = cbase == null || c.isPartitioned() ? Double.NaN : med / cbase.median();
            double limit = seq == null ? Double.NaN : med / (Math.min(c.workers(), cores) * seq.median());
            double ceil = ceiling == null ? Double.NaN : ceiling.median();
            Histogram all = new Histogram(3);
            for (RunSample r : s) {
                all.add(r.latencyNanos());
            }
            boolean latency = !c.isPartitioned();
            out.add(new CellResult(c, med, thr.min(), thr.max(), ratio, limit, ceil,
                    ceiling == null ? Double.NaN : ceiling.min(), ceiling == null ? Double.NaN : ceiling.max(),
                    c.isPartitioned() ? Double.NaN : RunStatistics.of(s, RunSample::avgGraphSize).median(),
                    latency ? all.getValueAtPercentile(50) / 1e3 : Double.NaN,
                    latency ? all.getValueAtPercentile(99) / 1e3 : Double.NaN, s.size(),
                    leftOut.getOrDefault(c, 0L)));
        }
        return out;
    }
}
