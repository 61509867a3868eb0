package io.psmr.bench.clusterbench;

import io.psmr.bench.e2e.E2eBench;
import io.psmr.bench.e2e.E2eResult;
import io.psmr.bench.e2e.E2eSettings;
import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.HistorySink;
import io.psmr.bench.load.LoadGenerator;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadRun;
import io.psmr.bench.load.OpRecord;
import io.psmr.bench.load.RunControls;
import io.psmr.bench.load.StallProbe;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * {@code psmr bench cluster}: what an operation costs on a process cluster. Round by round ({@link
 * ClusterBenchSettings#runs()}), every ordering gets a fresh process cluster, as {@code cluster start} starts it; its
 * idle CPU is read over {@link ClusterBenchSettings#idle()} with no client connected; then, for each client count,
 * one load through {@code ./psmr load}'s proxy and clients ({@link ClusterLoad#withProxy}, {@link LoadGenerator}) runs
 * a warm-up and a measured window on one proxy, after loads that warm the fresh cluster until its JIT compilers are
 * quiet ({@link #warmUp}, at most {@link ClusterBenchSettings#clusterWarmup()}). Over the measured window the run
 * counts the answered operations (by completion time) and their latency, and reads the CPU of every cluster process and of this JVM, the load
 * generator ({@link ClusterCpu}), at the window's start and end. After the last load, once the warm cluster has had
 * {@link #IDLE_SETTLE} with no client, its idle CPU is read over {@link ClusterBenchSettings#idle()}. Then the
 * cluster stops and its stores are deleted.
 * With {@link ClusterBenchSettings#reference()}, the same orderings then run in one JVM through {@link E2eBench}, per
 * client count, with the same runs, warm-up and duration.
 *
 * <p>Threads: {@link #run} on the caller's thread; one load at a time.
 */
public final class ClusterBench {

    /** How long a cluster may take to serve. */
    static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    /** How long a stopping node gets before SIGKILL. */
    static final Duration STOP_GRACE = Duration.ofSeconds(10);
    /** How long a cluster rests after its last load before its idle CPU is read: in-flight checkpoints finish. */
    static final Duration IDLE_SETTLE = Duration.ofSeconds(5);
    /** A fresh cluster is warm once its nodes' JIT compilers use less than this share of a core each. */
    static final double JIT_QUIET = 0.02;
    /** A load that completes nothing for this long fails the run. */
    static final Duration STALL = Duration.ofSeconds(10);

    private final ClusterBenchSettings settings;
    private final Path clusters;

    /** @param clusters where each cluster's directory goes ({@code <ordering>-<round>/}, logs kept) */
    public ClusterBench(ClusterBenchSettings settings, Path clusters) {
        this.settings = settings;
        this.clusters = clusters;
    }

    /** One measured window of one load. */
    record Sample(long operations, double opsPerSecond, long p50Micros, long p99Micros, long p999Micros,
                  Map<NodeRole, Long> cpuByRole, long clusterCpuNanos, long loadCpuNanos) {
    }

    /** One cluster's idle window: its nodes' CPU over {@code nanos}. */
    record Idle(long cpuNanos, long nanos, int nodes) {
        double cores() {
            return nanos == 0 ? 0 : (double) cpuNanos / nanos;
        }

        /** The mean node's share of a core, in percent. */
        double nodePercent() {
            return nodes == 0 ? 0 : 100 * cores() / nodes;
        }
    }

    /** What the processes gave: samples per (ordering, clients), idle windows per ordering. */
    record Measured(Map<OrderingProtocol, Map<Integer, List<Sample>>> samples, Map<OrderingProtocol, List<Idle>> idle) {
    }

    /**
     * Runs every round, then the reference; {@code progress} hears a line per step.
     *
     * @throws IllegalStateException if a cluster does not start, a load stalls or fails, or a reference run fails
     */
    public ClusterBenchReport run(Consumer<String> progress) throws InterruptedException {
        Measured m = runProcesses(progress);
        Map<OrderingProtocol, Map<Integer, E2eResult>> reference = new EnumMap<>(OrderingProtocol.class);
        if (settings.reference()) {
            for (int c : settings.clients()) {
                progress.accept("one JVM, " + c + " clients: " + settings.orderings().stream()
                        .map(OrderingProtocol::cliName).toList());
                for (E2eResult r : new E2eBench(e2eSettings(c)).run(mode -> { })) {
                    reference.computeIfAbsent(r.ordering(), o -> new java.util.TreeMap<>()).put(c, r);
                }
            }
        }
        return ClusterBenchReport.of(settings, m, reference);
    }

    private Measured runProcesses(Consumer<String> progress) throws InterruptedException {
        Map<OrderingProtocol, Map<Integer, List<Sample>>> samples = new EnumMap<>(OrderingProtocol.class);
        Map<OrderingProtocol, List<Idle>> idle = new EnumMap<>(OrderingProtocol.class);
        for (int round = 1; round <= settings.runs(); round++) {
            for (OrderingProtocol ordering : settings.orderings()) {
                Path dir = clusters.resolve(ordering.cliName() + "-" + round);
                ClusterLauncher launcher = new ClusterLauncher(dir).insecure(settings.insecure());
                Thread hook = new Thread(() -> stopQuietly(launcher), "psmr-bench-cluster-stop");
                Runtime.getRuntime().addShutdownHook(hook);
                try {
                    progress.accept("round " + round + ": " + ordering.cliName() + " cluster starting");
                    launcher.start(settings.clusterSpec(ordering), START_TIMEOUT);
                    warmUp(launcher, ordering, round, progress);
                    for (int c : settings.clients()) {
                        Sample s = load(launcher, ordering, c, settings.warmup());
                        samples.computeIfAbsent(ordering, o -> new java.util.TreeMap<>())
                                .computeIfAbsent(c, k -> new ArrayList<>()).add(s);
                        progress.accept(String.format(java.util.Locale.ROOT,
                                "round %d: %s, %d clients: %.0f ops/s, cluster CPU %.0f us/op, load %.0f us/op", round,
                                ordering.cliName(), c, s.opsPerSecond(), micros(s.clusterCpuNanos(), s.operations()),
                                micros(s.loadCpuNanos(), s.operations())));
                    }
                    parkUntil(System.nanoTime() + IDLE_SETTLE.toNanos());
                    Idle i = idle(launcher.directory().read());
                    idle.computeIfAbsent(ordering, o -> new ArrayList<>()).add(i);
                    progress.accept(String.format(java.util.Locale.ROOT,
                            "round %d: %s idle: %.3f cores, %.2f %% of a core per node", round, ordering.cliName(),
                            i.cores(), i.nodePercent()));
                } catch (IllegalStateException | IllegalArgumentException e) {
                    throw new IllegalStateException(ordering.cliName() + " cluster, round " + round + ": " + e.getMessage(), e);
                } finally {
                    stopQuietly(launcher);
                    deleteData(launcher);
                    try {
                        Runtime.getRuntime().removeShutdownHook(hook);
                    } catch (IllegalStateException exiting) {
                        // the hook is running: it stops the same nodes
                    }
                }
            }
        }
        return new Measured(samples, idle);
    }

    /**
     * Warms a fresh cluster with loads of the first client count, each a {@link ClusterBenchSettings#warmup()} and a
     * {@link ClusterBenchSettings#duration()} long and not counted, until its nodes' JIT compilers used less than
     * {@link #JIT_QUIET} of a core per node over one of them, or for {@link ClusterBenchSettings#clusterWarmup()} at
     * most (all of it where the system does not report the compilers' CPU). On 2 cores a fresh node JVM compiles for
     * a minute or two, and what its compilers use would count as the protocol's CPU per operation.
     */
    private void warmUp(ClusterLauncher launcher, OrderingProtocol ordering, int round, Consumer<String> progress)
            throws InterruptedException {
        ClusterDescriptor cluster = launcher.directory().read();
        int clients = settings.clients().get(0);
        long start = System.nanoTime();
        long end = start + settings.clusterWarmup().toNanos();
        double share = Double.NaN;
        while (System.nanoTime() < end) {
            long jitBefore = ClusterCpu.jitNanos(cluster);
            long t0 = System.nanoTime();
            load(launcher, ordering, clients, settings.warmup());
            long jitAfter = ClusterCpu.jitNanos(cluster);
            if (jitBefore < 0 || jitAfter < 0) {
                continue;
            }
            share = (jitAfter - jitBefore) / (double) (System.nanoTime() - t0) / cluster.nodes().size();
            if (share < JIT_QUIET) {
                break;
            }
        }
        progress.accept(String.format(java.util.Locale.ROOT, "round %d: %s warmed up for %d s; JIT compilers %s",
                round, ordering.cliName(), TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                Double.isNaN(share) ? "not read" : String.format(java.util.Locale.ROOT, "%.1f %% of a core per node over the last"
                        + " load%s", 100 * share, share < JIT_QUIET ? "" : " (still compiling: --cluster-warmup ended it)")));
    }

    static double micros(long nanos, long operations) {
        return operations == 0 ? Double.NaN : nanos / 1000.0 / operations;
    }

    private Idle idle(ClusterDescriptor cluster) {
        ClusterCpu.Reading a = ClusterCpu.read(cluster);
        long t0 = System.nanoTime();
        parkUntil(t0 + settings.idle().toNanos());
        ClusterCpu.Reading b = ClusterCpu.read(cluster);
        return new Idle(b.cluster() - a.cluster(), System.nanoTime() - t0, cluster.nodes().size());
    }

    /** One load: a warm-up of {@code warm}, then the measured window, on one proxy; CPU read at the window's edges. */
    private Sample load(ClusterLauncher launcher, OrderingProtocol ordering, int clients, Duration warm)
            throws InterruptedException {
        ClusterDescriptor cluster = launcher.directory().read();
        LoadOptions options = settings.loadOptions(ordering, clients, warm);
        Window window = new Window(warm.toNanos(), warm.plus(settings.duration()).toNanos());
        AtomicReference<ClusterCpu.Reading> first = new AtomicReference<>();
        AtomicReference<ClusterCpu.Reading> last = new AtomicReference<>();
        CountDownLatch sampled = new CountDownLatch(1);
        Thread sampler = new Thread(() -> {
            try {
                long origin = window.awaitOrigin();
                parkUntil(origin + window.fromNanos);
                first.set(ClusterCpu.read(cluster));
                parkUntil(origin + window.toNanos);
                last.set(ClusterCpu.read(cluster));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                sampled.countDown();
            }
        }, "psmr-bench-cluster-cpu");
        sampler.setDaemon(true);
        sampler.start();
        RunControls controls = new RunControls(0, false, STALL, StallProbe.NONE, n -> { })
                .withProxyStarted(p -> window.start(System.nanoTime()));
        try {
            ClusterLoad.withProxy(launcher.directory(), rc -> LoadRun.proxyConfig(options, rc), (proxy, probe) ->
                    LoadGenerator.run(proxy, options.workload(), window, controls.withProbe(probe)));
        } catch (InterruptedException e) {
            sampler.interrupt();
            throw e;
        } catch (Exception e) {
            sampler.interrupt();
            throw new IllegalStateException(clients + " clients: the load failed: " + e.getMessage(), e);
        }
        if (!sampled.await(settings.duration().toSeconds() + 30, TimeUnit.SECONDS) || first.get() == null
                || last.get() == null) {
            sampler.interrupt();
            throw new IllegalStateException(clients + " clients: the CPU of the measured window could not be read");
        }
        ClusterCpu.Reading a = first.get();
        ClusterCpu.Reading b = last.get();
        Map<NodeRole, Long> byRole = new EnumMap<>(NodeRole.class);
        b.byRole().forEach((role, ns) -> byRole.put(role, ns - a.byRole().getOrDefault(role, 0L)));
        long ops = window.operations.get();
        double seconds = (window.toNanos - window.fromNanos) / 1e9;
        return new Sample(ops, ops / seconds, window.latency.getValueAtPercentile(50), window.latency.getValueAtPercentile(99),
                window.latency.getValueAtPercentile(99.9), byRole, b.cluster() - a.cluster(), b.self() - a.self());
    }

    /** The measured window of a load: answered operations completed in [from, to) after the clients start. */
    private static final class Window implements HistorySink {
        final long fromNanos;
        final long toNanos;
        final AtomicLong operations = new AtomicLong();
        final ConcurrentHistogram latency = new ConcurrentHistogram(1, 3_600_000_000L, 3);
        private final CountDownLatch started = new CountDownLatch(1);
        private volatile long origin;

        Window(long fromNanos, long toNanos) {
            this.fromNanos = fromNanos;
            this.toNanos = toNanos;
        }

        void start(long nanoTime) {
            origin = nanoTime;
            started.countDown();
        }

        long awaitOrigin() throws InterruptedException {
            started.await();
            return origin;
        }

        @Override
        public void record(OpRecord op) {
            if (op.initial() || !op.acknowledged() || started.getCount() > 0) {
                return;
            }
            long t = op.completeNs() - origin;
            if (t >= fromNanos && t < toNanos) {
                operations.incrementAndGet();
                latency.recordValue(Math.min(3_600_000_000L, Math.max(1, (op.completeNs() - op.invokeNs()) / 1000)));
            }
        }
    }

    private static void parkUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    /** {@code bench e2e}'s settings for the one-JVM reference at {@code clients} clients: bitmap-indexed only. */
    E2eSettings e2eSettings(int clients) {
        WorkloadSpec spec = settings.workload(clients, settings.duration());
        return new E2eSettings(settings.orderings(), List.of(SchedulerMode.BITMAP_INDEXED), spec, ClusterBenchSettings.WORKERS,
                ClusterBenchSettings.BATCH, settings.window(), 0, 1_024_000, settings.runs(), settings.warmup(),
                settings.duration(), settings.seed(), settings.cores(), settings.outDir());
    }

    private static void stopQuietly(ClusterLauncher launcher) {
        try {
            if (launcher.directory().exists()) {
                launcher.stop(STOP_GRACE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // best effort: the results do not depend on it
        }
    }

    /** Deletes the stopped cluster's stores; logs, status files and cluster.json stay. */
    private static void deleteData(ClusterLauncher launcher) {
        try {
            launcher.deleteStores();
        } catch (RuntimeException e) {
            // a node that outlived its stop, or an unreadable cluster.json: the results do not depend on it
        }
    }
}
