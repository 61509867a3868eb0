package io.psmr.bench.demo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.psmr.bench.stats.FreshThread;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.GraphKind;
import io.psmr.scheduler.Scheduler;
import io.psmr.scheduler.SchedulerMetrics;

/**
 * {@code psmr demo}: a synthetic workload through the real scheduler, in process.
 *
 * <p>The batches are built, with their conflict summaries, before any timing, as the client proxy
 * would build them; one thread then delivers them as fast as the scheduler takes them, and a run
 * ends when {@link Scheduler#awaitIdle} returns. Every configuration runs once untimed as a warm-up,
 * then {@code rounds} times, interleaved with the other configurations. After every run the
 * service's state is compared with plain sequential execution of the same commands, and the
 * scheduler's counters with the number of commands delivered.
 */
public final class Demo {

    /** Commands per batch of the batched configurations. */
    public static final int BATCH_SIZE = 200;

    /** Bitmap size of the bitmap configurations. */
    public static final int BITMAP_BITS = 1_024_000;

    /** Worker counts that every parallel configuration runs with. */
    public static final int[] WORKER_COUNTS = {1, 2};

    private static final int WARMUP_COMMANDS = 20_000;
    private static final long RUN_TIMEOUT_MINUTES = 10;

    private final DemoOptions options;

    public Demo(DemoOptions options) {
        this.options = options;
    }

    /** The configurations, in report order. */
    public static List<DemoConfig> configs() {
        ConflictDetection bitmap = ConflictDetection.bitmap(BITMAP_BITS);
        List<DemoConfig> configs = new ArrayList<>();
        configs.add(new DemoConfig("sequential", bitmap, null, BATCH_SIZE, 1));
        for (int w : WORKER_COUNTS) {
            configs.add(new DemoConfig("cbase", ConflictDetection.keysPairwise(), GraphKind.MONITOR, 1, w));
        }
        for (int w : WORKER_COUNTS) {
            configs.add(new DemoConfig("keys_hashed", ConflictDetection.keysHashed(), GraphKind.SPLIT_INDEXED, BATCH_SIZE, w));
        }
        for (GraphKind g : List.of(GraphKind.MONITOR, GraphKind.SPLIT_INDEXED)) {
            for (int w : WORKER_COUNTS) {
                configs.add(new DemoConfig("bitmap", bitmap, g, BATCH_SIZE, w));
            }
        }
        for (int w : WORKER_COUNTS) {
            configs.add(new DemoConfig("rw_bitmap", ConflictDetection.rwBitmap(BITMAP_BITS), GraphKind.SPLIT_INDEXED,
                    BATCH_SIZE, w));
        }
        return configs;
    }

    /**
     * Runs every configuration and returns the results in {@link #configs()} order.
     *
     * @throws IllegalStateException if a run's final state or counters differ from sequential execution
     */
    public List<DemoResult> run() throws InterruptedException {
        List<DemoConfig> configs = configs();
        // Conflicts count batches, so batches of one (CBASE) get their own sequence.
        List<SyntheticCommand> batched = Workload.commands(options.commands(), BATCH_SIZE, options.seed(),
                options.conflictPercent());
        List<SyntheticCommand> single = Workload.commands(options.cbaseCommands(), 1, options.seed(),
                options.conflictPercent());
        SyntheticService service = new SyntheticService(Workload.KEY_SPACE, options.workRounds());

        // Everything a timed run needs, built before any timing.
        Map<String, Workset> timed = new HashMap<>();
        Map<String, Workset> warmup = new HashMap<>();
        for (DemoConfig c : configs) {
            List<SyntheticCommand> commands = c.batchSize() == 1 ? single : batched;
            String key = c.detection() + "/" + c.batchSize();
            timed.computeIfAbsent(key, k -> Workset.of(commands, c, service));
            warmup.computeIfAbsent(key, k -> Workset.of(
                    commands.subList(0, Math.min(commands.size(), warmupSize(c))), c, service));
        }

        for (DemoConfig c : configs) {
            runOnce(c, warmup.get(c.detection() + "/" + c.batchSize()), service);
        }
        double[][] throughput = new double[configs.size()][options.rounds()];
        for (int r = 0; r < options.rounds(); r++) {
            for (int i = 0; i < configs.size(); i++) {
                DemoConfig c = configs.get(i);
                Workset w = timed.get(c.detection() + "/" + c.batchSize());
                long nanos = runOnce(c, w, service);
                throughput[i][r] = w.commands * 1e9 / Math.max(1, nanos);
            }
        }
        List<DemoResult> results = new ArrayList<>();
        for (int i = 0; i < configs.size(); i++) {
            DemoConfig c = configs.get(i);
            results.add(new DemoResult(c, timed.get(c.detection() + "/" + c.batchSize()).commands, throughput[i]));
        }
        return results;
    }

    private int warmupSize(DemoConfig c) {
        return c.batchSize() == 1 ? Math.max(1, WARMUP_COMMANDS / 10) : WARMUP_COMMANDS;
    }

    /**
     * One run of {@code config} over {@code work} on a delivery thread started for it, checked; returns its
     * wall-clock nanoseconds. A fresh thread for every configuration ({@link FreshThread}):
     * the sequential scheduler executes on the delivery thread, and this thread built the worksets by executing
     * every command once.
     */
    private static long runOnce(DemoConfig config, Workset work, SyntheticService service) throws InterruptedException {
        return FreshThread.call("psmr-demo-delivery", () -> runHere(config, work, service));
    }

    private static long runHere(DemoConfig config, Workset work, SyntheticService service) throws InterruptedException {
        service.reset();
        long nanos;
        SchedulerMetrics metrics;
        try (Scheduler<SyntheticCommand, Long> scheduler = config.start(service)) {
            long t0 = System.nanoTime();
            for (Batch<SyntheticCommand> b : work.batches) {
                scheduler.deliver(b);
            }
            if (!scheduler.awaitIdle(RUN_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                throw new IllegalStateException(config + " did not finish within " + RUN_TIMEOUT_MINUTES + " minutes");
            }
            nanos = System.nanoTime() - t0;
            metrics = scheduler.metrics();
        }
        if (metrics.commandsExecuted() != work.commands || metrics.commandsFailed() != 0
                || metrics.batchesRejected() != 0) {
            throw new IllegalStateException(config + ": executed " + metrics.commandsExecuted() + " of "
                    + work.commands + " commands, " + metrics.commandsFailed() + " failed, "
                    + metrics.batchesRejected() + " batches rejected");
        }
        if (service.digest() != work.expectedDigest) {
            throw new IllegalStateException(config + ": the final state differs from sequential execution"
                    + " of the same commands");
        }
        return nanos;
    }

    /** Pre-built batches of one detection and batch size, and the state digest they must end with. */
    private record Workset(List<Batch<SyntheticCommand>> batches, int commands, long expectedDigest) {

        static Workset of(List<SyntheticCommand> commands, DemoConfig config, SyntheticService service) {
            service.reset();
            for (SyntheticCommand c : commands) {
                service.execute(c);
            }
            long digest = service.digest();
            return new Workset(Workload.batches(commands, config.batchSize(), config.detection()),
                    commands.size(), digest);
        }
    }
}
