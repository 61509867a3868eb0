package io.psmr.bench.faults;

import io.psmr.ordering.pbft.LeaderSelection;
import io.psmr.bench.chaos.ProcessSignals;
import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.LoadGenerator;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadRun;
import io.psmr.bench.load.LoadStalledException;
import io.psmr.bench.load.RunControls;
import io.psmr.bench.load.StallProbe;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One scenario of {@code psmr bench faults}: a fresh PBFT process cluster ({@link FaultSettings#clusterSpec(io.psmr.ordering.pbft.LeaderSelection)}), a
 * closed-loop load against it, the fault injected on the targets once the fault-free window has passed, and the
 * load stopped when the faulty window ends; the cluster is stopped whatever happened, and its replicas' stores deleted.
 *
 * <p><b>Timing.</b> Time 0 is when the load's clients start. The fault is injected at {@code --fault-free}: a crash
 * SIGKILLs each target ({@link ClusterLauncher#kill}), a pause SIGSTOPs it ({@link ProcessSignals}), and a Byzantine
 * scenario cues it ({@link ClusterLauncher#cueByzantine}): its targets started as dormant Byzantine replicas, correct
 * and warm until then, and act in their mode within a status poll (100 ms) of the cue. The onset is the signal or the
 * cue. The faulty window starts at the onset rounded up to a 100 ms bucket and
 * lasts {@code --faulty}; a paused target gets SIGCONT when it ends, and the load is stopped then.
 *
 * <p><b>The load.</b> It runs on a thread of its own, through {@link ClusterLoad#withProxy} and
 * {@link LoadGenerator}, with a duration that bounds the scenario; it is ended by interrupting that thread, which
 * {@link LoadGenerator#run} answers by interrupting its clients. Its stall timeout ({@value #STALL_SECONDS} s without
 * any operation completing) ends a scenario that stalled, naming what it cannot hear from.
 *
 * <p><b>Bounded.</b> Every wait is: the cluster's start ({@link #START_TIMEOUT}), a cue ({@link #CUE_TIMEOUT}), the load's
 * start, the load itself (its stall timeout), and its end.
 *
 * <p>While a scenario runs, a shutdown hook stops its cluster (and resumes a paused target), since the nodes run in
 * sessions of their own and would outlive a Ctrl-C of the benchmark.
 *
 * <p>Called from one thread; not thread-safe.
 */
final class FaultRun {

    /** How long a cluster may take to serve. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** How long a cued Byzantine replica may take to say it acts (it polls for its cue every 100 ms). */
    static final Duration CUE_TIMEOUT = Duration.ofSeconds(10);
    /** How long the load may go without completing any operation. */
    static final long STALL_SECONDS = 10;
    /** How long the load may take to reach the replicas and start its clients. */
    static final Duration LOAD_START_TIMEOUT = Duration.ofSeconds(60);
    /** How long the load's thread may take to end once stopped. */
    static final Duration LOAD_END_TIMEOUT = Duration.ofSeconds(30);
    /** How long the nodes get to exit on SIGTERM at the end. */
    static final Duration STOP_GRACE = Duration.ofSeconds(5);

    private final FaultSettings settings;
    private final FaultScenario scenario;
    private final LeaderSelection selection;
    private final Path clusterDir;
    private final List<String> targets;
    private final Duration longest;
    private final CompletionTimeline timeline;
    // Also read by the shutdown hook.
    private final List<Long> paused = new CopyOnWriteArrayList<>();
    // Nanoseconds from the origin, or null until they happen.
    private Long injected;
    private Long onset;
    private Long healed;
    private Long failedAt;
    private Long startMillis;
    private int faultyFrom = -1;
    private int faultyEnd = -1;

    private FaultRun(FaultSettings settings, FaultScenario scenario, LeaderSelection selection, Path clusterDir) {
        this.selection = selection;
        this.settings = settings;
        this.scenario = scenario;
        this.clusterDir = clusterDir;
        this.targets = settings.targets();
        // The load must outlast the fault-free window, the targets' cues and the faulty window; it is ended earlier.
        this.longest = settings.faultFree().plus(CUE_TIMEOUT.multipliedBy(targets.size()))
                .plus(settings.faulty()).plus(LOAD_END_TIMEOUT);
        this.timeline = new CompletionTimeline(longest, settings.warmup(), settings.faultFree(), settings.faulty());
    }

    /** Runs {@code scenario} on a new cluster in {@code clusterDir} (which must not hold one) and reports it. */
    static ScenarioResult run(FaultSettings settings, FaultScenario scenario, LeaderSelection selection, Path clusterDir)
            throws InterruptedException {
        return new FaultRun(settings, scenario, selection, clusterDir).run();
    }

    private ScenarioResult run() throws InterruptedException {
        ClusterLauncher launcher = new ClusterLauncher(clusterDir);
        String error = null;
        // The nodes run in sessions of their own: a Ctrl-C of the benchmark would leave them running without this.
        Thread hook = new Thread(() -> {
            try {
                paused.forEach(FaultRun::resumeQuietly);
                if (launcher.directory().exists()) {
                    launcher.stop(STOP_GRACE);
                }
            } catch (InterruptedException | RuntimeException e) {
                // the JVM is exiting: nothing more to do
            }
        }, "psmr-bench-faults-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            try {
                long begin = System.nanoTime();
                launcher.start(clusterSpec(), START_TIMEOUT);
                startMillis = (System.nanoTime() - begin) / 1_000_000;
            } catch (IllegalStateException | IllegalArgumentException e) {
                throw new Failure("the cluster did not start: " + e.getMessage());
            }
            ClusterDescriptor cluster = launcher.directory().read();
            for (String t : targets) {
                if (cluster.node(t).isEmpty()) {
                    throw new Failure("the cluster has no replica " + t);
                }
            }
            LoadThread load = new LoadThread(launcher.directory(), settings.loadOptions(longest), timeline);
            load.thread.start();
            try {
                drive(launcher, load);
            } catch (Failure e) {
                if (timeline.origin() != Long.MAX_VALUE) {
                    failedAt = System.nanoTime() - timeline.origin(); // now, not after the load's end
                }
                throw e;
            } finally {
                load.end();
            }
        } catch (Failure e) {
            error = e.getMessage();
        } finally {
            for (long pid : paused) {
                try {
                    ProcessSignals.resume(pid); // a stopped process would not act on the SIGTERM of the stop
                } catch (IllegalStateException e) {
                    error = error != null ? error : "could not resume a paused replica: " + e.getMessage();
                }
            }
            if (launcher.directory().exists()) {
                launcher.stop(STOP_GRACE);
                deleteStores(launcher);
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException exiting) {
                // the hook is running or about to: it stops the same nodes
            }
        }
        return result(error);
    }

    /** Deletes the stopped cluster's stores; logs, status files and cluster.json stay. */
    private static void deleteStores(ClusterLauncher launcher) {
        try {
            launcher.deleteStores();
        } catch (RuntimeException e) {
            // a node that outlived its stop, or an unreadable cluster.json: the results do not depend on it
        }
    }

    private static void resumeQuietly(long pid) {
        try {
            ProcessSignals.resume(pid);
        } catch (InterruptedException | RuntimeException e) {
            // best effort, on the way out
        }
    }

    /**
     * The scenario's cluster: for a Byzantine one, the targets start as dormant Byzantine replicas, correct until
     * their cue at the onset, so that the faulty window measures the attack of a warm replica and not a restart.
     */
    private ClusterSpec clusterSpec() {
        ClusterSpec spec = settings.clusterSpec(selection);
        if (scenario.kind() != FaultScenario.Kind.BYZANTINE) {
            return spec;
        }
        Map<String, ByzantineMode> modes = new TreeMap<>();
        targets.forEach(t -> modes.put(t, scenario.mode()));
        return spec.withDormantByzantine(modes);
    }

    /** Waits out the fault-free window, injects the fault, waits out the faulty window; throws on a failure. */
    private void drive(ClusterLauncher launcher, LoadThread load) throws InterruptedException, Failure {
        long t0 = load.awaitStarted();
        if (load.awaitEnd(t0 + settings.faultFree().toNanos())) {
            throw load.failure("before the fault");
        }
        long start = System.nanoTime();
        injected = start - t0;
        long onsetNanos = start;
        for (String t : targets) {
            switch (scenario.kind()) {
                case CRASH -> {
                    try {
                        launcher.kill(t);
                    } catch (IllegalStateException e) {
                        throw new Failure("could not kill " + t + ": " + e.getMessage());
                    }
                }
                case PAUSE -> {
                    ClusterNode node = launcher.directory().read().node(t).orElseThrow();
                    long pid = node.liveProcess().orElseThrow(() -> new Failure(t + " is not running: cannot pause it"))
                            .pid();
                    try {
                        ProcessSignals.stop(pid);
                    } catch (IllegalStateException e) {
                        throw new Failure("could not pause " + t + ": " + e.getMessage());
                    }
                    paused.add(pid);
                }
                case BYZANTINE -> {
                    try {
                        launcher.cueByzantine(t, CUE_TIMEOUT);
                    } catch (IllegalStateException | IllegalArgumentException e) {
                        throw new Failure(t + " did not turn " + scenario.mode().cliName() + ": " + e.getMessage());
                    }
                }
            }
        }
        onset = onsetNanos - t0;
        faultyFrom = (int) ((onset + CompletionTimeline.BUCKET_NANOS - 1) / CompletionTimeline.BUCKET_NANOS);
        faultyEnd = faultyFrom + (int) (settings.faulty().toMillis() / CompletionTimeline.BUCKET_MILLIS);
        timeline.faultyFrom(faultyFrom * CompletionTimeline.BUCKET_NANOS);
        if (load.awaitEnd(t0 + faultyEnd * CompletionTimeline.BUCKET_NANOS)) {
            throw load.failure("after the fault's onset");
        }
        if (!paused.isEmpty()) {
            healed = System.nanoTime() - t0;
            for (long pid : List.copyOf(paused)) {
                ProcessSignals.resume(pid);
                paused.remove(Long.valueOf(pid));
            }
        }
    }

    private ScenarioResult result(String error) {
        long bucket = CompletionTimeline.BUCKET_MILLIS;
        int ffFrom = (int) (settings.warmup().toMillis() / bucket);
        int ffTo = (int) (settings.faultFree().toMillis() / bucket);
        int length = error == null ? faultyEnd
                : failedAt == null ? 0 : (int) Math.min(Integer.MAX_VALUE, failedAt / CompletionTimeline.BUCKET_NANOS + 1);
        long[] buckets = timeline.buckets(Math.max(0, length));
        Double faultFree = buckets.length >= ffTo && ffTo > ffFrom
                ? FaultMetrics.opsPerSecond(buckets, ffFrom, ffTo, bucket) : null;
        boolean faultyDone = error == null && faultyEnd > faultyFrom && faultyFrom >= 0 && buckets.length >= faultyEnd;
        Double faulty = faultyDone ? FaultMetrics.opsPerSecond(buckets, faultyFrom, faultyEnd, bucket) : null;
        Double fraction = faultFree != null && faulty != null && faultFree > 0 ? FaultMetrics.fraction(faultFree, faulty) : null;
        Long recovery = null;
        Long firstBack = null;
        Double faultyBelow = null;
        if (faultFree != null && faulty != null && faultFree > 0) {
            var r = FaultMetrics.recoveryMillis(buckets, faultyFrom, faultyEnd, bucket, faultFree);
            recovery = r.isPresent() ? r.getAsLong() : null;
            var first = FaultMetrics.firstBackMillis(buckets, faultyFrom, faultyEnd, bucket, faultFree);
            firstBack = first.isPresent() ? first.getAsLong() : null;
            faultyBelow = FaultMetrics.shareBelow(buckets, faultyFrom, faultyEnd, bucket, faultFree);
        }
        Double faultFreeBelow = faultFree != null && faultFree > 0 && ffTo - ffFrom >= FaultMetrics.SMOOTHING_BUCKETS
                ? FaultMetrics.shareBelow(buckets, ffFrom, ffTo, bucket, faultFree) : null;
        Histogram ff = timeline.faultFreeLatency();
        Histogram fy = timeline.faultyLatency();
        return new ScenarioResult(scenario.name(), selection.cliName(), scenario.kind().name().toLowerCase(java.util.Locale.ROOT), targets,
                scenario.describe(targets), error, startMillis, bucket, buckets, FaultMetrics.perSecond(buckets, bucket),
                settings.warmup().toMillis(), settings.faultFree().toMillis(), millis(injected), millis(onset),
                faultyFrom < 0 ? null : faultyFrom * bucket, faultyEnd < 0 ? null : faultyEnd * bucket, millis(healed),
                faultFree, faulty, fraction, recovery, recovery != null, firstBack, faultFreeBelow, faultyBelow,
                percentile(ff, 50), percentile(ff, 99), faultyDone ? percentile(fy, 50) : null,
                faultyDone ? percentile(fy, 99) : null);
    }

    private static Long millis(Long nanos) {
        return nanos == null ? null : nanos / 1_000_000;
    }

    private static Double percentile(Histogram h, double p) {
        return h.getTotalCount() == 0 ? null : h.getValueAtPercentile(p) / 1000.0;
    }

    /** Why a scenario could not run through. */
    private static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    /**
     * The load's thread: {@link LoadGenerator#run} over a proxy of {@link ClusterLoad#withProxy}, recording into the
     * timeline, until {@link #end} interrupts it (or it fails). The latches order its writes before the reads of the
     * scenario's thread.
     */
    private static final class LoadThread {
        final Thread thread;
        private final CountDownLatch started = new CountDownLatch(1);
        private final CountDownLatch ended = new CountDownLatch(1);
        private final CompletionTimeline timeline;
        private final Object lock = new Object();
        private boolean returned; // under lock: LoadGenerator.run is over, an interrupt must not reach what follows
        private boolean endRequested; // under lock
        private volatile Throwable failure;

        LoadThread(ClusterDirectory dir, LoadOptions options, CompletionTimeline timeline) {
            this.timeline = timeline;
            RunControls controls = new RunControls(0, false, Duration.ofSeconds(STALL_SECONDS), StallProbe.NONE, n -> { })
                    .withProxyStarted(p -> {
                        timeline.start(System.nanoTime());
                        started.countDown();
                    });
            thread = new Thread(() -> {
                try {
                    ClusterLoad.withProxy(dir, rc -> LoadRun.proxyConfig(options, rc), (proxy, probe) -> {
                        try {
                            LoadGenerator.run(proxy, options.workload(), timeline, controls.withProbe(probe));
                        } catch (InterruptedException e) {
                            synchronized (lock) {
                                if (!endRequested) {
                                    throw e;
                                }
                            }
                        } finally {
                            synchronized (lock) {
                                returned = true;
                                Thread.interrupted(); // an end requested just as the run returned: not for the proxy's close
                            }
                        }
                        return null;
                    });
                } catch (Throwable t) {
                    failure = t;
                } finally {
                    ended.countDown();
                }
            }, "psmr-bench-faults-load");
            thread.setDaemon(true); // a load that does not end in time must not keep the JVM alive
        }

        /** Waits until the clients start; returns the timeline's origin. */
        long awaitStarted() throws InterruptedException, Failure {
            long deadline = System.nanoTime() + LOAD_START_TIMEOUT.toNanos();
            while (!started.await(100, TimeUnit.MILLISECONDS)) {
                if (ended.getCount() == 0) {
                    throw failure("before its clients started");
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new Failure("the load did not start within " + LOAD_START_TIMEOUT.toSeconds()
                            + " s (it could not reach the replicas)");
                }
            }
            return timeline.origin();
        }

        /** Waits until {@code deadlineNanos} ({@link System#nanoTime}); true if the load ended (failed) first. */
        boolean awaitEnd(long deadlineNanos) throws InterruptedException {
            return ended.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }

        /** The failure that ended the load, as a scenario failure. */
        Failure failure(String when) {
            Throwable t = failure;
            if (t instanceof LoadStalledException) {
                return new Failure("the load " + t.getMessage() + " (" + when + ")");
            }
            return new Failure("the load failed " + when + ": " + (t == null ? "it ended early"
                    : t.getMessage() == null ? t.toString() : t.getMessage()));
        }

        /** Stops the load (if it runs) and waits for its thread, at most {@link #LOAD_END_TIMEOUT}. */
        void end() throws InterruptedException {
            synchronized (lock) {
                endRequested = true;
                if (!returned) {
                    thread.interrupt();
                }
            }
            ended.await(LOAD_END_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
        }
    }
}
