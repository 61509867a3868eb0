package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.bench.scheduler.SchedulerBench;
import io.psmr.bench.stats.RunStatistics;
import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.pbft.EmbeddedPbftCluster;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.kvstore.mlbft.EmbeddedMlbftCluster;
import io.psmr.kvstore.mlbft.MlbftReplica;
import io.psmr.bench.load.MlbftLoadRun;
import io.psmr.kvstore.ratis.EmbeddedRatisCluster;
import io.psmr.kvstore.ratis.RatisDurability;
import io.psmr.kvstore.ratis.RatisReplica;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplicaStats;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.ringpaxos.net.LoopbackRingPaxos;
import io.psmr.ordering.ringpaxos.net.RingPaxosTransportConfig;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.proxy.ProxyStats;
import io.psmr.proxy.ReplyTrust;
import io.psmr.bench.load.HistorySink;
import io.psmr.bench.load.LoadGenerator;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadResult;
import io.psmr.bench.load.LoadRun;
import io.psmr.bench.load.WorkloadSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The end-to-end benchmark: closed-loop clients → {@link ClientProxy} → ordering → one replica, per
 * {@link OrderingProtocol} and {@link SchedulerMode}. Each run starts a fresh replica (its own scheduler and
 * in-memory Chronicle Map) over a fresh ordering layer — an {@link EmbeddedCluster} with its local
 * sequencer, a {@link LoopbackRingPaxos} of 3 acceptors whose one adapter is both the replica's
 * learner and the proxy's proposer, or a {@link EmbeddedPbftCluster} of 4 PBFT replicas with a store replica on each
 * (Byzantine faults need every replica executing: the proxy accepts f+1 = 2 matching replies), or a {@link EmbeddedRatisCluster}
 * of {@value #RATIS_PEERS} Ratis peers on loopback, each executing with psmr as its state machine (its log fsync'd before
 * an entry counts: {@link RatisDurability#SYNC}) — and a fresh proxy, and drives them with {@link LoadGenerator}
 * (the clients of {@code ./psmr load}) for the run's duration. Replies go through the in-process
 * {@link LocalReplyRouter} in every case.
 *
 * <p>The replica and proxy settings are {@code ./psmr load}'s ({@link LoadRun#replicaConfig},
 * {@link LoadRun#proxyConfig}); only the detection and the graph are replaced by the mode's, so
 * that the monitor graph and keys compared pairwise at batch 200 can be run too, which
 * {@code ./psmr load --mode} does not offer.
 *
 * <p><b>Order.</b> One warm-up run of every (mode, ordering), then {@link E2eSettings#runs()} rounds,
 * each running every mode once per ordering (A/local A/ringpaxos B/local B/ringpaxos … again …), so
 * drift hits all alike.
 *
 * <p><b>Checks.</b> A run fails (and the benchmark with it) unless the replica served (operations
 * acknowledged and executed), every operation was answered, no answer was an error status, no batch
 * timed out or was refused, and the replica did not stop.
 */
public final class E2eBench {

    /** Ring Paxos transport of the runs: the defaults with a 5 ms tick. */
    static final RingPaxosTransportConfig RING_PAXOS_TRANSPORT = RingPaxosTransportConfig.defaults().withTickInterval(Duration.ofMillis(5));

    /**
     * PBFT of the runs: f=1 (4 PBFT replicas, each with a store replica, all executing), {@link EmbeddedPbftCluster#config}'s
     * defaults with 2 pillars and rotating leaders, as {@code ./psmr load --ordering pbft}.
     */
    static final PbftConfig PBFT = pbft(new E2eVariant(E2eVariant.DEFAULT_PILLARS, E2eVariant.DEFAULT_ROTATION, 1, 0));

    /** PBFT of the runs at {@code v}: as {@link #PBFT} with its pillars and leader rotation. */
    static PbftConfig pbft(E2eVariant v) {
        return EmbeddedPbftCluster.config(1, v.pillars(), v.rotation());
    }

    /** Ratis peers of the runs, each executing (a majority of 2 commits). */
    static final int RATIS_PEERS = 3;

    /** How long the replica may take to apply what was ordered once the clients have stopped. */
    static final long QUIESCE_SECONDS = 120;

    /** The statuses a healthy run answers with; anything else is an error. */
    private static final Set<KvStatus> ANSWERS = Set.of(KvStatus.OK, KvStatus.NOT_FOUND, KvStatus.EXISTS);

    private final E2eSettings settings;

    public E2eBench(E2eSettings settings) {
        this.settings = settings;
    }

    /** Runs that {@link #run} and {@link #runFailover} make, warm-ups and failover trials included (for a progress bar). */
    public int totalRuns() {
        int configs = 0;
        for (OrderingProtocol o : settings.orderings()) {
            configs += settings.sweep().variants(o).size() * modes(o).size();
        }
        return configs * (1 + settings.runs()) + failoverTrials();
    }

    /** Failover trials {@link #runFailover} makes: {@link E2eSettings#runs()} when Ring Paxos is measured, else none. */
    public int failoverTrials() {
        return settings.orderings().contains(OrderingProtocol.RING_PAXOS) ? settings.runs() : 0;
    }

    /** The mode whose workload and replica the failover trials run: the bitmap mode of {@code ./psmr load}. */
    static final SchedulerMode FAILOVER_MODE = SchedulerMode.BITMAP_INDEXED;

    /**
     * When Ring Paxos is among the orderings, runs {@link #failoverTrials()} {@link E2eFailover} trials of
     * {@link #FAILOVER_MODE}'s workload, each of the measured runs' duration, and summarises them; call it after
     * {@link #run}, whose runs have warmed the JVM up, so there is no warm-up trial. {@code afterRun} is called after
     * each trial with {@link #FAILOVER_MODE}.
     *
     * @return the summary, or empty if Ring Paxos is not measured
     * @throws IllegalStateException if a trial fails its checks
     */
    public Optional<E2eFailoverResult> runFailover(Consumer<SchedulerMode> afterRun) throws InterruptedException {
        if (failoverTrials() == 0) {
            return Optional.empty();
        }
        LoadOptions o = options(settings.sweep().variants(OrderingProtocol.RING_PAXOS).get(0), FAILOVER_MODE,
                settings.duration());
        ReplicaConfig rc = replicaConfig(FAILOVER_MODE, o);
        ProxyConfig pc = LoadRun.proxyConfig(o, rc);
        List<E2eFailover.Sample> samples = new ArrayList<>();
        for (int i = 0; i < failoverTrials(); i++) {
            samples.add(E2eFailover.trial(o, rc, pc, settings.duration()));
            afterRun.accept(FAILOVER_MODE);
        }
        return Optional.of(E2eFailover.summarise(samples));
    }

    /**
     * The modes {@code ordering} runs: all of them, but one for MLBFT, whose replicas run their partitions' workers
     * instead of a scheduler (its rows carry the first mode and are named {@code mlbft}).
     */
    List<SchedulerMode> modes(OrderingProtocol ordering) {
        return ordering == OrderingProtocol.MLBFT ? List.of(settings.modes().get(0)) : settings.modes();
    }

    /** What one run measured. */
    record Sample(double throughputOps, double meanBatch, Histogram latencyMicros, long retries, double leaderBytesPerOp,
                  double meanBytesPerOp, double deadlocks) {
    }

    /** One (ordering, sweep point, mode)'s samples are keyed by this. */
    record Key(OrderingProtocol ordering, E2eVariant variant, SchedulerMode mode) {
    }

    /**
     * Runs every mode over every ordering; {@code afterRun} is called after each run (warm-ups included) with its mode.
     *
     * @throws IllegalStateException if a run fails its checks
     */
    public List<E2eResult> run(Consumer<SchedulerMode> afterRun) throws InterruptedException {
        for (SchedulerMode m : settings.modes()) {
            for (OrderingProtocol ord : settings.orderings()) {
                if (!modes(ord).contains(m)) {
                    continue;
                }
                for (E2eVariant v : settings.sweep().variants(ord)) {
                    runOnce(ord, v, m, settings.warmup());
                    afterRun.accept(m);
                }
            }
        }
        Map<Key, List<Sample>> samples = new HashMap<>();
        for (int round = 0; round < settings.runs(); round++) {
            for (SchedulerMode m : settings.modes()) {
                for (OrderingProtocol ord : settings.orderings()) {
                    if (!modes(ord).contains(m)) {
                        continue;
                    }
                    for (E2eVariant v : settings.sweep().variants(ord)) {
                        samples.computeIfAbsent(new Key(ord, v, m), k -> new ArrayList<>())
                                .add(runOnce(ord, v, m, settings.duration()));
                        afterRun.accept(m);
                    }
                }
            }
        }
        return summarise(settings, samples);
    }

    /** The load settings of {@code mode}'s runs of {@code duration} at sweep point {@code v}. */
    LoadOptions options(E2eVariant v, SchedulerMode mode, Duration duration) {
        E2eSettings s = settings;
        WorkloadSpec x = s.workload();
        WorkloadSpec w = new WorkloadSpec(x.clients(), x.keys(), x.readFraction(), x.multiPutFraction(), x.multiPutKeys(),
                x.valueSize(), duration, 0, s.seed(), s.sweep().partitions(), v.crossPct());
        return new LoadOptions(1, mode == SchedulerMode.SEQUENTIAL ? SchedulerMode.SEQUENTIAL : SchedulerMode.BITMAP_INDEXED, s.workers(),
                mode.batch(v.batch()), s.window(), Duration.ZERO, s.conflictPct(), Duration.ofSeconds(5), w);
    }

    /** {@code ./psmr load}'s replica settings with the mode's detection and graph. */
    ReplicaConfig replicaConfig(SchedulerMode mode, LoadOptions o) {
        SchedulerMode b = mode;
        ReplicaConfig.Builder rc = LoadRun.replicaConfig(o).toBuilder();
        if (b.parallel()) {
            rc.detection(b.detection(settings.bitmapBits())).graph(b.graph()).sequential(false);
        } else {
            // No scheduler; the proxy still attaches bitmaps of the configured size, as in classic SMR with psmr's proxy.
            rc.detection(SchedulerMode.BITMAP_INDEXED.detection(settings.bitmapBits())).sequential(true);
        }
        return rc.build();
    }

    /**
     * The replicas over one ordering layer (one, or 3f+1 under PBFT and MLBFT and 3 under Ratis, every one executing),
     * where the proxy proposes, the router their replies go through, how to wait for the replicas to apply what was
     * ordered and check them, the bytes they sent, MLBFT's deadlocks, what the proxy's settings need (its reply trust,
     * MLBFT's lanes), and how to close it all.
     */
    private record Setup(OrderingClient broadcast, LocalReplyRouter router, Settler settler, Supplier<long[]> sentBytes,
                         LongSupplier deadlocks, UnaryOperator<ProxyConfig> proxySettings, Runnable closer)
            implements AutoCloseable {

        /** A setup whose proxy differs from {@code ./psmr load}'s only by {@code replyTrust}, and counts no deadlocks. */
        Setup(OrderingClient broadcast, LocalReplyRouter router, Settler settler, ReplyTrust replyTrust,
              Supplier<long[]> sentBytes, Runnable closer) {
            this(broadcast, router, settler, sentBytes, () -> -1, pc -> pc.toBuilder().replyTrust(replyTrust).build(),
                    closer);
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    /** Waits, once the clients have stopped, until the replicas have applied everything ordered, then checks the run. */
    @FunctionalInterface
    private interface Settler {
        /** @throws IllegalStateException naming {@code run} and the first check it failed, or the wait that timed out */
        void settle(String run, LoadResult r, ProxyStats ps) throws InterruptedException;
    }

    /** Every replica applies up to {@code lastInstance}, then passes {@link #checkRun}. */
    private static Settler replicasApply(List<Replica> replicas, LongSupplier lastInstance) {
        return (run, r, ps) -> {
            long last = lastInstance.getAsLong();
            for (Replica replica : replicas) {
                if (!replica.awaitApplied(last, QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(run + ": replica " + replica.id() + " did not apply every ordered batch within "
                            + QUIESCE_SECONDS + " s of the clients stopping");
                }
                checkRun(run, r, ps, replica);
            }
        };
    }

    /** Every running Ratis peer applies every committed entry, passes {@link #checkRun}, and the digests agree. */
    private static Settler ratisPeersApply(EmbeddedRatisCluster c) {
        return (run, r, ps) -> {
            if (!c.awaitQuiescent(QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(run + ": the Ratis peers did not apply every committed entry within "
                        + QUIESCE_SECONDS + " s of the clients stopping");
            }
            c.checkPeers();
            for (RatisReplica replica : c.replicas()) {
                checkRun(run, r, ps, replica.stats(), Optional.empty());
            }
            List<Long> digests = c.digests();
            check(run, digests.stream().distinct().count() == 1, "the Ratis peers' digests differ: " + digests);
        };
    }

    /**
     * Every MLBFT replica runs everything ordered and passes {@link #checkRun}; the digests, the deadlocks resolved and
     * how they were resolved agree.
     */
    private static Settler mlbftApply(EmbeddedMlbftCluster c) {
        return (run, r, ps) -> {
            if (!c.awaitQuiescent(QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(run + ": the MLBFT replicas did not run every ordered request within "
                        + QUIESCE_SECONDS + " s of the clients stopping: " + c.replicas());
            }
            for (MlbftReplica replica : c.replicas()) {
                checkRun(run, r, ps, replica.stats(), replica.failure());
            }
            List<Long> digests = c.digests();
            check(run, digests.stream().distinct().count() == 1, "the MLBFT replicas' digests differ: " + digests);
            List<String> resolved = c.replicas().stream()
                    .map(x -> x.mlbftStats().deadlocks() + " deadlocks, resolutions " + Long.toHexString(x.mlbftStats().resolutions()))
                    .toList();
            check(run, resolved.stream().distinct().count() == 1, "the MLBFT replicas resolved deadlocks differently: "
                    + resolved);
        };
    }

    private Setup setup(OrderingProtocol ordering, E2eVariant v, ReplicaConfig rc) throws InterruptedException {
        if (ordering == OrderingProtocol.MLBFT) {
            EmbeddedMlbftCluster c = EmbeddedMlbftCluster.start(1, settings.sweep().mlbftPartitions(),
                    rc.toBuilder().capacity(StoreCapacity.unbounded()).build());
            return new Setup(c.orderingClient(), c.router(), mlbftApply(c), () -> {
                        long[] sent = new long[c.replicas().size()];
                        for (int i = 0; i < sent.length; i++) {
                            sent[i] = c.sentBytes(i);
                        }
                        return sent;
                    }, () -> c.replicas().get(0).mlbftStats().deadlocks(), pc -> MlbftLoadRun.proxyConfig(pc, c), c::close);
        }
        if (ordering == OrderingProtocol.LOCAL) {
            EmbeddedCluster c = EmbeddedCluster.start(1, rc);
            return new Setup(c.broadcast(), c.router(), replicasApply(c.replicas(), c.broadcast()::lastInstance),
                    ReplyTrust.FIRST_REPLY, () -> new long[0], c::close);
        }
        if (ordering == OrderingProtocol.RATIS) {
            return ratisSetup(rc);
        }
        if (ordering == OrderingProtocol.PBFT) {
            EmbeddedPbftCluster c = EmbeddedPbftCluster.start(pbft(v), rc);
            return new Setup(c.broadcast(), c.router(), replicasApply(c.replicas(), c::lastInstance),
                    ReplyTrust.matching(c.f(), c.replicaIds()), () -> {
                        long[] sent = new long[c.replicas().size()];
                        for (int i = 0; i < sent.length; i++) {
                            sent[i] = c.pbft().network().sentBytes(i);
                        }
                        return sent;
                    }, c::close);
        }
        LoopbackRingPaxos rp = LoopbackRingPaxos.start(3, 1, RING_PAXOS_TRANSPORT);
        LocalReplyRouter router = new LocalReplyRouter();
        Replica replica;
        try {
            // Time the run from a cluster that has elected its coordinator, not from its first election.
            if (rp.awaitCoordinator(QUIESCE_SECONDS, TimeUnit.SECONDS) < 0) {
                throw new IllegalStateException("ringpaxos: no coordinator within " + QUIESCE_SECONDS + " s");
            }
            replica = Replica.start(rc.toBuilder().replicaId(1).build(), rp.broadcast(0), router);
        } catch (RuntimeException | InterruptedException e) {
            rp.close();
            throw e;
        }
        return new Setup(rp.proposing(), router, replicasApply(List.of(replica), rp.proposing()::lastInstance),
                ReplyTrust.FIRST_REPLY, () -> new long[0], () -> {
            replica.close();
            rp.close();
        });
    }

    /**
     * {@value #RATIS_PEERS} Ratis peers with durable logs in a fresh temporary directory (removed on close), no
     * automatic snapshots (runs are short), timed from an elected leader.
     */
    private static Setup ratisSetup(ReplicaConfig rc) throws InterruptedException {
        Path dir;
        try {
            dir = Files.createTempDirectory("psmr-e2e-ratis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the Ratis logs: " + e.getMessage(), e);
        }
        EmbeddedRatisCluster c;
        try {
            c = EmbeddedRatisCluster.start(RATIS_PEERS, rc, dir, 0, RatisDurability.SYNC);
        } catch (RuntimeException e) {
            deleteRecursively(dir);
            throw e;
        }
        try {
            if (c.awaitLeader(QUIESCE_SECONDS, TimeUnit.SECONDS) == 0) {
                throw new IllegalStateException("ratis: no leader within " + QUIESCE_SECONDS + " s");
            }
        } catch (RuntimeException | InterruptedException e) {
            c.close();
            deleteRecursively(dir);
            throw e;
        }
        return new Setup(c.broadcast(), c.router(), ratisPeersApply(c), ReplyTrust.FIRST_REPLY, () -> new long[0], () -> {
            c.close();
            deleteRecursively(dir);
        });
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Best effort: a temporary directory left behind is not worth failing a finished run.
        }
    }

    private Sample runOnce(OrderingProtocol ordering, E2eVariant v, SchedulerMode mode, Duration duration)
            throws InterruptedException {
        // MLBFT's replicas have no scheduler: its proxy batches as the default mode's (never CBASE's batches of one).
        SchedulerMode run = ordering == OrderingProtocol.MLBFT ? SchedulerMode.DEFAULT : mode;
        LoadOptions o = options(v, run, duration);
        ReplicaConfig rc = replicaConfig(run, o);
        try (Setup setup = setup(ordering, v, rc)) {
            ProxyConfig pc = setup.proxySettings().apply(LoadRun.proxyConfig(o, rc));
            try (ClientProxy proxy = ClientProxy.start(pc, setup.broadcast(), setup.router(), LoadRun.hotKeys(o, pc))) {
                LoadResult r = LoadGenerator.run(proxy, o.workload(), HistorySink.NONE);
                ProxyStats ps = proxy.stats();
                setup.settler().settle(ordering.cliName() + "/" + (ordering == OrderingProtocol.MLBFT ? "mlbft"
                        : mode.cliName()), r, ps);
                // Every replica has applied everything ordered, so the protocol traffic of these operations is sent.
                long[] sent = setup.sentBytes().get();
                double most = Double.NaN;
                double mean = Double.NaN;
                if (sent.length > 0) {
                    most = (double) Arrays.stream(sent).max().getAsLong() / r.acknowledged();
                    mean = (double) Arrays.stream(sent).sum() / sent.length / r.acknowledged();
                }
                long deadlocks = setup.deadlocks().getAsLong();
                return new Sample(r.throughput(), ps.meanBatchSize(), r.latencyMicros(), ps.retries(), most, mean,
                        deadlocks < 0 ? Double.NaN : deadlocks);
            }
        }
    }

    /**
     * The checks of every run (see the class comment), on a replica that has applied everything ordered.
     *
     * @param run names the run in the error, e.g. the mode
     * @throws IllegalStateException naming the run and the first check it failed
     */
    static void checkRun(String run, LoadResult r, ProxyStats ps, Replica replica) {
        checkRun(run, r, ps, replica.stats(), replica.failure());
    }

    /** {@link #checkRun(String, LoadResult, ProxyStats, Replica)} on a replica's statistics and failure. */
    static void checkRun(String run, LoadResult r, ProxyStats ps, ReplicaStats rs, Optional<Throwable> failure) {
        check(run, r.acknowledged() > 0 && rs.commandsExecuted() > 0,
                "the replica served nothing (" + r.acknowledged() + " acknowledged, " + rs.commandsExecuted() + " executed)");
        check(run, r.unanswered() == 0, r.unanswered() + " operations got no answer");
        check(run, ps.timedOut() == 0, ps.timedOut() + " batches timed out");
        check(run, rs.batchesRefused() == 0, rs.batchesRefused() + " batches refused by the replica");
        check(run, failure.isEmpty(), "the replica stopped: " + failure.orElse(null));
        for (Map.Entry<KvStatus, Long> e : r.byStatus().entrySet()) {
            check(run, ANSWERS.contains(e.getKey()), e.getValue() + " operations answered " + e.getKey());
        }
    }

    private static void check(String run, boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException("e2e run of " + run + " failed: " + message);
        }
    }

    /** PBFT's sweep point that MLBFT's point {@code p} is compared with: the same batch and cross-partition share. */
    static E2eVariant pbftPeer(E2eSettings s, E2eVariant p) {
        return new E2eVariant(s.sweep().pillars().get(0), s.sweep().rotations().get(0), p.batch(), p.crossPct());
    }

    /**
     * Medians with min and max, and the ratios to CBASE and to sequential over the same ordering, and
     * to the same mode over the local sequencer, all of the same invocation. Rows: ordering-major.
     */
    static List<E2eResult> summarise(E2eSettings s, Map<Key, List<Sample>> samples) {
        Map<Key, RunStatistics> ops = new HashMap<>();
        samples.forEach((k, v) -> ops.put(k, RunStatistics.of(v, Sample::throughputOps)));
        List<E2eResult> out = new ArrayList<>();
        for (OrderingProtocol ord : s.orderings()) {
            for (E2eVariant p : s.sweep().variants(ord)) {
                RunStatistics cbase = ops.get(new Key(ord, p, SchedulerMode.CBASE));
                RunStatistics seq = ops.get(new Key(ord, p, SchedulerMode.SEQUENTIAL));
                if (ord == OrderingProtocol.MLBFT) {
                    // MLBFT's one row is compared with COP-PBFT's sequential execution at the same point (the thesis'
                    // single-leader reference), the first of PBFT's pillars and rotations swept.
                    seq = s.orderings().contains(OrderingProtocol.PBFT)
                            ? ops.get(new Key(OrderingProtocol.PBFT, pbftPeer(s, p), SchedulerMode.SEQUENTIAL)) : null;
                    cbase = s.orderings().contains(OrderingProtocol.PBFT)
                            ? ops.get(new Key(OrderingProtocol.PBFT, pbftPeer(s, p), SchedulerMode.CBASE)) : null;
                }
                for (SchedulerMode m : s.modes()) {
                    List<Sample> v = samples.get(new Key(ord, p, m));
                    if (v == null) {
                        continue; // MLBFT runs one mode
                    }
                    RunStatistics thr = ops.get(new Key(ord, p, m));
                    double med = thr.median();
                    RunStatistics local = ops.get(new Key(OrderingProtocol.LOCAL, p.forOrdering(OrderingProtocol.LOCAL), m));
                    Histogram all = new Histogram(3);
                    long retries = 0;
                    for (Sample x : v) {
                        all.add(x.latencyMicros());
                        retries += x.retries();
                    }
                    boolean traffic = v.stream().noneMatch(x -> Double.isNaN(x.leaderBytesPerOp()));
                    RunStatistics leader = traffic ? RunStatistics.of(v, Sample::leaderBytesPerOp) : null;
                    RunStatistics deadlocks = v.stream().noneMatch(x -> Double.isNaN(x.deadlocks()))
                            ? RunStatistics.of(v, Sample::deadlocks) : null;
                    int batch = ord == OrderingProtocol.MLBFT ? p.batch() : m.batch(p.batch());
                    out.add(new E2eResult(ord, m, batch, med, thr.min(), thr.max(),
                            cbase == null ? Double.NaN : med / cbase.median(),
                            seq == null ? Double.NaN : med / seq.median(),
                            RunStatistics.of(v, Sample::meanBatch).median(),
                            all.getValueAtPercentile(50), all.getValueAtPercentile(99), all.getValueAtPercentile(99.9), retries,
                            v.size(), local == null ? Double.NaN : med / local.median(), p,
                            traffic ? leader.median() : Double.NaN, traffic ? leader.min() : Double.NaN,
                            traffic ? leader.max() : Double.NaN,
                            traffic ? RunStatistics.of(v, Sample::meanBytesPerOp).median() : Double.NaN,
                            deadlocks == null ? Double.NaN : deadlocks.median(),
                            deadlocks == null ? Double.NaN : deadlocks.min(),
                            deadlocks == null ? Double.NaN : deadlocks.max()));
                }
            }
        }
        return out;
    }
}
