package io.psmr.kvstore.pbft;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.IdleDigest;
import io.psmr.kvstore.Checkpointing;
import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointInstaller;
import io.psmr.kvstore.checkpoint.CheckpointServer;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.checkpoint.InstalledCheckpoint;
import io.psmr.kvstore.StoreConfig;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplicaStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.psmr.kvstore.metrics.StoreMeters;
import io.psmr.ordering.metrics.OrderingMeters;
import io.psmr.ordering.metrics.SchedulerMeters;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PillarSnapshot;
import io.psmr.ordering.pbft.keys.PbftKeyFiles;
import io.psmr.ordering.pbft.net.PbftTransportStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.time.Duration;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PBFT replica process: a {@link PbftStoreNode} (the replica's pillars on their ports, its broadcast, the store
 * replica, its reply server and its proposal port) configured from {@code cluster.json}, with the keys of
 * {@code DIR/keys/replica-<id>.keys}.
 *
 * <h2>Checkpoints and state transfer</h2>
 * The store checkpoints every {@code pbft.checkpointInterval} delivered instances into {@code data/NAME/checkpoints}
 * (never skipping one), and each checkpoint is the PBFT checkpoint at the sequence number that delivered its
 * instance ({@link PbftCheckpoints}); the replica serves them on its checkpoint port ({@link CheckpointServer}). When a
 * stable checkpoint leaves it behind (its log below is gone at the others), the execution stage freezes and this
 * runtime fetches a checkpoint from the other replicas ({@link PbftStateTransfer}: installed only if its recomputed
 * digest is the one 2f+1 replicas certified; a mismatching peer is named and the next tried), closes the stale
 * incarnation, and starts a new one resumed from it, its pillars adopting the stable checkpoint; it logs
 * {@code caught up by state transfer: installed checkpoint C in M ms}. Meanwhile its status says not serving.
 *
 * <h2>Start and restart</h2>
 * Before opening any socket it loads its key file ({@link PbftKeyFiles#load}): a missing file, or one readable or
 * writable by group or others, is refused with that call's message (the process then exits non-zero, the message in
 * its log and in {@code cluster start}'s or {@code restart}'s output). A restart installs the newest intact local
 * checkpoint (or starts empty at instance 1 without one) and goes on from the log, or by state transfer if the
 * others moved past it. Each incarnation (process start or state transfer) takes a new number from
 * {@code data/NAME/incarnation}, and numbers its own PBFT clients' requests from {@code incarnation · 2^40 + 1},
 * above any number an earlier one used (the others refuse numbers already ordered).
 *
 * <p><b>Digest.</b> Reported only when idle ({@link IdleDigest}), as for the other replicas.
 *
 * <p><b>Threads.</b> {@link #status} and {@link #close} from the node host's thread; state transfer runs on this
 * runtime's recovery thread; {@link #transferNeeded} on the execution agent's thread (it only hands over).
 */
public final class PbftReplicaRuntime implements NodeRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(PbftReplicaRuntime.class);
    /** Request numbers each incarnation may use before the next one's range. */
    static final int INCARNATION_SHIFT = 40;
    private static final Duration FETCH_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration FETCH_READ_TIMEOUT = Duration.ofSeconds(10);
    private static final long MAX_CHECKPOINT_BYTES = 16L << 30;
    private static final long RETRY_MILLIS = 200;
    /** Stable checkpoints remembered for state transfer (the newest). */
    private static final int MAX_CERTIFIED = 16;

    private final ClusterDescriptor cluster;
    private final ClusterNode node;
    private final PbftClusterSettings settings;
    private final PbftConfig config;
    private final PbftKeys keys;
    private final int replica;
    private final Path data;
    private final Path storeFile;
    private final ReplicaConfig storeConfig;
    private final CheckpointStore checkpoints;
    private final CheckpointServer checkpointServer; // null in a cluster.json without checkpoint ports
    private final ExecutorService recovery;
    private final ConcurrentSkipListMap<Long, StableCheckpoint> certified = new ConcurrentSkipListMap<>();
    private final AtomicBoolean catchingUp = new AtomicBoolean();
    private final IdleDigest idle = new IdleDigest();
    private final Object lock = new Object();
    private PbftStoreNode current; // guarded by lock
    private boolean closed;        // guarded by lock

    private PbftReplicaRuntime(ClusterDescriptor cluster, ClusterNode node, PbftKeys keys, Path data,
                               CheckpointStore checkpoints, CheckpointServer server) {
        this.cluster = cluster;
        this.node = node;
        this.settings = cluster.pbft();
        this.config = settings.config();
        this.keys = keys;
        this.replica = node.replicaId() - 1;
        this.data = data;
        this.storeFile = data.resolve("store.cm");
        ReplicaConfig rc = cluster.settings().replicaConfig(node.replicaId());
        this.storeConfig = rc.toBuilder().store(rc.store().persistedTo(storeFile)).build();
        this.checkpoints = checkpoints;
        this.checkpointServer = server;
        this.recovery = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "psmr-pbft-catch-up");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Loads the replica's keys and starts it from its newest intact local checkpoint, or empty.
     *
     * @throws IllegalArgumentException with {@link PbftKeyFiles#load}'s message if its key file is refused
     */
    public static PbftReplicaRuntime start(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        PbftClusterSettings s = cluster.pbft();
        int r = node.replicaId() - 1;
        PbftKeys keys;
        try {
            keys = PbftKeyFiles.load(dir.keysDir(), r, s.replicas(), s.pillars());
        } catch (IOException e) {
            throw new IllegalArgumentException(node.name() + " refuses to start: " + e.getMessage(), e);
        }
        Path data = dir.dataDir(node.name());
        CheckpointServer server = null;
        try {
            Files.createDirectories(data);
            CheckpointStore checkpoints = CheckpointStore.open(data, CheckpointStore.DEFAULT_RETAIN); // data/NAME/checkpoints
            if (node.checkpointPort() > 0) {
                server = CheckpointServer.start(checkpoints, node.address(node.checkpointPort()), 2);
            }
            PbftReplicaRuntime rt = new PbftReplicaRuntime(cluster, node, keys, data, checkpoints, server);
            Checkpoint local = rt.newestIntactCheckpoint();
            PbftStoreNode first = rt.startIncarnation(local, null);
            synchronized (rt.lock) {
                rt.current = first;
                rt.lock.notifyAll();
            }
            return rt;
        } catch (IOException e) {
            if (server != null) {
                server.close();
            }
            throw new UncheckedIOException(node.name() + " cannot start: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (server != null) {
                server.close();
            }
            throw e;
        }
    }

    /** The newest local checkpoint that opens intact and holds a PBFT state, or null (a damaged one is skipped). */
    private Checkpoint newestIntactCheckpoint() throws IOException {
        List<Long> all = checkpoints.list();
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                Checkpoint c = checkpoints.open(all.get(i));
                PbftCheckpoints.certification(c);
                return c;
            } catch (IOException | RuntimeException e) {
                LOG.warn("{} skips its local checkpoint {}: {}", node.name(), all.get(i), e.getMessage());
            }
        }
        return null;
    }

    /**
     * Starts a replica from {@code checkpoint} (installed into the store file), or empty from instance 1 if null;
     * {@code adopt} is the stable checkpoint that certified a transferred one.
     */
    private PbftStoreNode startIncarnation(Checkpoint checkpoint, StableCheckpoint adopt) throws IOException {
        long incarnation = nextIncarnation(data);
        InstalledCheckpoint installed = null;
        if (checkpoint != null) {
            installed = CheckpointInstaller.install(checkpoint, storeConfig.store(), true);
        } else {
            Files.deleteIfExists(storeFile); // the file holds no state of its own: only a checkpoint is trusted
        }
        int interval = settings.checkpointInterval();
        PbftCheckpoints bridge = new PbftCheckpoints(interval, PbftStoreNode.RETAINED_INSTANCES / interval + 4,
                checkpoints, this::transferNeeded);
        List<InetSocketAddress> pillars = new ArrayList<>();
        for (int p = 0; p < settings.pillars(); p++) {
            pillars.add(cluster.pillarAddress(replica, p));
        }
        PbftStoreNode n = PbftStoreNode.start(replica, config, keys, new PbftStoreNode.Addresses(pillars,
                        node.address(node.port()), node.address(node.replyPort())),
                cluster::pillarAddress, storeConfig, (incarnation << INCARNATION_SHIFT) + 1,
                new PbftStoreNode.Checkpoints(Checkpointing.every(interval, checkpoints, bridge), bridge, installed, adopt),
                settings.byzantineMode(node.name()).orElse(null));
        settings.byzantineMode(node.name()).ifPresent(m -> LOG.warn("{}: BYZANTINE ON PURPOSE ({}: {}); a testing and"
                + " demonstration tool, never for production", node.name(), m.cliName(), m.description()));
        LOG.info("{}: PBFT replica {} of {} ({} pillars, {} leaders), incarnation {}, pillar ports {}, checkpoint every {}"
                        + " instances, {}", node.name(), replica, settings.replicas(), settings.pillars(), settings.rotation(),
                incarnation, settings.pillarPorts().get(replica), interval, installed == null ? "starting empty at instance 1"
                        : "resumed from checkpoint " + installed.instance() + (adopt == null ? " (its own)"
                        : " (certified at sequence number " + adopt.seq() + ")"));
        return n;
    }

    /**
     * A stable checkpoint left this replica behind (execution agent's thread: hands over, never blocks). The first
     * call starts a catch-up on the recovery thread; later ones add newer certificates it can match against.
     */
    private void transferNeeded(StableCheckpoint stable) {
        certified.put(stable.seq(), stable);
        while (certified.size() > MAX_CERTIFIED) {
            certified.pollFirstEntry();
        }
        if (catchingUp.compareAndSet(false, true)) {
            LOG.warn("{} fell behind: checkpoint {} became stable above what it executed, and the others discarded"
                    + " their log below it; fetching a certified checkpoint from {}", node.name(), stable.seq(),
                    cluster.checkpointPeers(node));
            recovery.execute(this::catchUp);
        }
    }

    /** Fetches a certified checkpoint and replaces the stale incarnation by one resumed from it. Recovery thread. */
    private void catchUp() {
        long started = System.nanoTime();
        PbftStoreNode stale;
        try {
            synchronized (lock) {
                // A replica can fall behind while its incarnation is still starting (the others' first frames
                // already carry a stable checkpoint): wait until the start has handed it over.
                while (current == null && !closed) {
                    lock.wait(100);
                }
                if (closed) {
                    return;
                }
                stale = current;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        long have = stale.store().stats().lastInstance();
        List<InetSocketAddress> peers = cluster.checkpointPeers(node);
        try (CheckpointFetcher fetcher = new CheckpointFetcher(checkpoints, FETCH_CONNECT_TIMEOUT, FETCH_READ_TIMEOUT,
                MAX_CHECKPOINT_BYTES)) {
            PbftStateTransfer transfer = new PbftStateTransfer(fetcher, checkpoints);
            long attempts = 0;
            while (true) {
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                }
                try {
                    // The stale incarnation keeps running meanwhile: its pillars collect newer stable checkpoints.
                    PbftStateTransfer.Verified v = transfer.fetch(peers, have + 1, certified::get);
                    synchronized (lock) {
                        if (closed) {
                            return;
                        }
                        current = null; // not serving until the new incarnation runs
                    }
                    stale.close();
                    PbftStoreNode next = startIncarnation(v.checkpoint(), v.certificate());
                    synchronized (lock) {
                        if (closed) {
                            next.close();
                            return;
                        }
                        current = next;
                    }
                    certified.headMap(v.certificate().seq(), true).clear();
                    catchingUp.set(false);
                    if (!certified.isEmpty() && catchingUp.compareAndSet(false, true)) {
                        recovery.execute(this::catchUp); // the new incarnation is behind a newer one already
                    }
                    LOG.info("{} caught up by state transfer: installed checkpoint {} in {} ms (from {}, sequence number {},"
                                    + " digest certified by {} replicas, {} bytes of store)", node.name(),
                            v.checkpoint().instance(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                            v.peer(), v.certificate().seq(), v.certificate().proof().size(),
                            v.checkpoint().manifest().storeLength());
                    return;
                } catch (IOException | RuntimeException e) {
                    if (Long.bitCount(++attempts) == 1) { // 1st, 2nd, 4th, ...: a waiting replica must not flood its log
                        LOG.warn("{} cannot install a certified checkpoint yet (attempt {}): {}; retrying every {} ms",
                                node.name(), attempts, e.getMessage(), RETRY_MILLIS);
                    }
                }
                Thread.sleep(RETRY_MILLIS); // a pause between rounds of peers (certificates arrive meanwhile)
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads, increments and writes {@code data/incarnation} (0 at the first start). */
    private static long nextIncarnation(Path data) {
        Path file = data.resolve("incarnation");
        try {
            Files.createDirectories(data);
            long n = Files.exists(file) ? Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim()) + 1 : 0;
            if (n >= (1L << (63 - INCARNATION_SHIFT))) {
                throw new IllegalStateException(file + " says " + n + " incarnations; no request numbers are left");
            }
            Path tmp = data.resolve("incarnation.tmp");
            Files.writeString(tmp, n + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot update " + file, e);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(file + " does not hold a number: " + e.getMessage(), e);
        }
    }

    /** The current incarnation's scheduler, store and delivered instances (NaN or last value while catching up). */
    @Override
    public void bindMeters(MeterRegistry registry) {
        SchedulerMeters.bind(registry, () -> {
            io.psmr.kvstore.Replica r = replicaNow();
            return r == null ? null : r.schedulerMetrics();
        });
        OrderingMeters.bindDelivered(registry, () -> {
            io.psmr.kvstore.Replica r = replicaNow();
            return r == null ? 0 : r.stats().lastInstance();
        });
        StoreMeters.bind(registry, () -> {
            io.psmr.kvstore.Replica r = replicaNow();
            return r == null ? Double.NaN : r.store().size();
        }, () -> {
            io.psmr.kvstore.Replica r = replicaNow();
            return r == null ? Double.NaN : r.storedBytes();
        }, storeConfig.capacity());
    }

    private io.psmr.kvstore.Replica replicaNow() {
        synchronized (lock) {
            return current == null ? null : current.store();
        }
    }

    @Override
    public NodeStatus status() throws InterruptedException {
        PbftStoreNode pbft;
        synchronized (lock) {
            pbft = current;
        }
        if (pbft == null || catchingUp.get()) {
            return new NodeStatus(node.name(), ProcessHandle.current().pid(), false, false, 0, null, null,
                    System.currentTimeMillis(), "catching up by state transfer");
        }
        try {
            return status(pbft);
        } catch (RuntimeException e) {
            synchronized (lock) {
                if (current == pbft) {
                    throw e;
                }
            }
            // A catch-up closed this incarnation while it was being asked: not serving, not failed.
            return new NodeStatus(node.name(), ProcessHandle.current().pid(), false, false, 0, null, null,
                    System.currentTimeMillis(), "catching up by state transfer");
        }
    }

    private NodeStatus status(PbftStoreNode pbft) throws InterruptedException {
        Replica replica = pbft.store();
        ReplicaStats before = replica.stats();
        long batches = before.batchesDelivered();
        long instance = before.lastInstance();
        Long digest = idle.poll(batches, instance, () -> replica.awaitApplied(instance, 1, TimeUnit.SECONDS),
                replica::digest, () -> {
                    ReplicaStats after = replica.stats();
                    return after.batchesDelivered() == batches && after.lastInstance() == instance;
                });
        String failure = pbft.failure().map(Throwable::getMessage).orElse(null);
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), replica.isServing() && failure == null,
                pbft.isPrimaryOfPillar0(), idle.instance(instance), digest, failure, System.currentTimeMillis(),
                byzantine(pbft.byzantineSummary(), detail(pbft.status())));
    }

    /** The detail with a first line naming the Byzantine mode (testing only), if the replica has one. */
    static String byzantine(String summary, String detail) {
        return summary == null ? detail : summary + "\n" + detail;
    }

    /** Per pillar: view, h, core refusals; then transport refusals and drops, and proposal-port refusals. */
    static String detail(PbftStoreNode.Status s) {
        StringBuilder b = new StringBuilder();
        for (PillarSnapshot p : s.pillars()) {
            b.append("pillar ").append(p.pillar()).append(": view ").append(p.view()).append(", stable checkpoint ")
                    .append(p.lowWatermark()).append(", core refusals ").append(new TreeMap<>(p.refusals()))
                    .append(", malformed ").append(p.malformed()).append('\n');
        }
        PbftTransportStats t = s.transport();
        b.append("transport refusals ").append(nonZero(t.refusals())).append(", drops ").append(nonZero(t.drops()))
                .append(", connections out ").append(t.outbound()).append(" in ").append(t.inbound()).append('\n');
        b.append("proposal port refusals ").append(nonZero(s.proposalRefusals()));
        return b.toString();
    }

    private static Map<String, Long> nonZero(Map<?, Long> counters) {
        Map<String, Long> m = new TreeMap<>();
        counters.forEach((k, v) -> {
            if (v != 0) {
                m.put(String.valueOf(k), v);
            }
        });
        return m;
    }

    @Override
    public void close() {
        PbftStoreNode n;
        synchronized (lock) {
            closed = true;
            n = current;
            current = null;
        }
        recovery.shutdownNow();
        try {
            // A catch-up may be installing a checkpoint (file copies ignore interrupts): let it see `closed`.
            if (!recovery.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("{}: the catch-up thread did not stop within 30 s", node.name());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (lock) {
            if (n == null) {
                n = current; // a catch-up that finished meanwhile
                current = null;
            }
        }
        if (n != null) {
            n.close();
        }
        if (checkpointServer != null) {
            checkpointServer.close();
        }
    }
}
