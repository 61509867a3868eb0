package io.psmr.kvstore.ringpaxos;

import io.psmr.kvstore.cluster.IdleDigest;
import io.micrometer.core.instrument.MeterRegistry;
import io.psmr.kvstore.metrics.StoreMeters;
import io.psmr.ordering.metrics.OrderingMeters;
import io.psmr.ordering.metrics.SchedulerMeters;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.kvstore.Checkpointing;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaCheckpointState;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplicaStats;
import io.psmr.kvstore.StoreConfig;
import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetchException;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointInstaller;
import io.psmr.kvstore.checkpoint.CheckpointServer;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.checkpoint.InstalledCheckpoint;
import io.psmr.kvstore.net.ReplyServer;
import io.psmr.kvstore.net.ReplyServerConfig;
import io.psmr.ordering.ringpaxos.LearnerCheckpoint;
import io.psmr.ordering.ringpaxos.net.RingPaxosBroadcast;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.ordering.node.NodeStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Ring Paxos replica process: a Ring Paxos learner on its fixed port, the {@link Replica}
 * (scheduler and Chronicle Map) subscribed to it, a {@link ReplyServer} on its reply port, and a
 * {@link CheckpointServer} on its checkpoint port.
 *
 * <h2>Checkpoints and state transfer</h2>
 * Every {@link #CHECKPOINT_INTERVAL} delivered instances the replica writes a checkpoint under
 * {@code data/NAME/checkpoints} (the newest two are kept) and, once it is durable, reports it to the
 * acceptors, which may then trim their logs up to it. On start the replica loads its latest local
 * checkpoint, if any, installs its store into {@code data/NAME/store.cm}, and resumes the learner from
 * the checkpoint's position; with none it starts empty from the first instance. If the acceptors
 * have trimmed past what it needs (it was down longer than they wait for a silent learner), the
 * learner says so: the replica then stops its current incarnation, fetches a newer checkpoint from
 * another replica's checkpoint server (verified against its digest), installs it and resumes from
 * there, retrying with a pause while no peer has one. Meanwhile it reports itself not serving.
 *
 * <p><b>Digest.</b> Reported only when idle ({@link IdleDigest}): no batch delivered since the
 * previous poll, everything delivered executed, and nothing delivered while it was computed.
 *
 * <p><b>Threads.</b> {@link #status} and {@link #close} from the node command's thread; catching up
 * runs on this runtime's own recovery thread.
 */
public final class RingPaxosReplicaRuntime implements NodeRuntime {

    /**
     * Delivered instances between checkpoints. At most half the acceptors' log capacity (1,024 by
     * default), so that the next checkpoint is always reachable before a full log waits for it.
     */
    public static final int CHECKPOINT_INTERVAL = 512;

    private static final Logger LOG = LoggerFactory.getLogger(RingPaxosReplicaRuntime.class);
    private static final Duration FETCH_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration FETCH_READ_TIMEOUT = Duration.ofSeconds(10);
    private static final long MAX_CHECKPOINT_BYTES = 16L << 30;
    private static final long RETRY_MILLIS = 1_000;

    private final ClusterDescriptor cluster;
    private final ClusterNode node;
    private final ReplicaConfig config;
    private final Path storeFile;
    private final CheckpointStore checkpoints;
    private final ReplyServer replies;
    private final CheckpointServer checkpointServer;
    private final ExecutorService recovery;
    private final IdleDigest idle = new IdleDigest();
    private final Object lock = new Object();
    private Incarnation current; // guarded by lock; null while catching up
    private boolean closed;      // guarded by lock

    /** One run of the learner and the replica, from one checkpoint (or from the start). */
    private record Incarnation(RingPaxosBroadcast broadcast, Replica replica) {
        void close() {
            replica.close();
            broadcast.close();
        }
    }

    public RingPaxosReplicaRuntime(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        this.cluster = cluster;
        this.node = node;
        this.config = cluster.settings().replicaConfig(node.replicaId());
        Path data = dir.dataDir(node.name());
        this.storeFile = data.resolve("store.cm");
        ReplyServer rs = null;
        CheckpointServer cs = null;
        try {
            Files.createDirectories(data);
            this.checkpoints = CheckpointStore.open(data, CheckpointStore.DEFAULT_RETAIN); // in data/NAME/checkpoints/
            rs = ReplyServer.start(node.address(node.replyPort()), ReplyServerConfig.defaults());
            cs = CheckpointServer.start(checkpoints, node.address(node.checkpointPort()), 2);
            Checkpoint local = newestIntactCheckpoint();
            this.replies = rs;
            this.checkpointServer = cs;
            this.recovery = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "psmr-replica-catch-up");
                t.setDaemon(true);
                return t;
            });
            synchronized (lock) {
                current = start(local);
            }
        } catch (IOException | RuntimeException e) {
            if (cs != null) {
                cs.close();
            }
            if (rs != null) {
                rs.close();
            }
            throw e instanceof IOException io ? new UncheckedIOException("replica " + node.name() + " cannot start: "
                    + io.getMessage(), io) : (RuntimeException) e;
        }
    }

    /**
     * The newest local checkpoint that opens intact, or null. A damaged one (its files do not match
     * their manifest) is skipped with a warning naming it: an older one, or a peer's, will do.
     */
    private Checkpoint newestIntactCheckpoint() throws IOException {
        List<Long> all = checkpoints.list();
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                return checkpoints.open(all.get(i));
            } catch (IOException e) {
                LOG.warn("{} skips its local checkpoint {}: {}", node.name(), all.get(i), e.getMessage());
            }
        }
        return null;
    }

    /** Starts the learner and the replica from {@code checkpoint}, or from the first instance if null. */
    private Incarnation start(Checkpoint checkpoint) throws IOException {
        InstalledCheckpoint installed = null;
        RingPaxosBroadcast.Builder b = RingPaxosBroadcast.builder(cluster.ringPaxosConfig(), node.paxosId(),
                        cluster.transportConfig(), cluster.peers())
                .learnerBind(node.address(node.port()))
                .checkpointEvery(CHECKPOINT_INTERVAL);
        StoreConfig store = config.store().persistedTo(storeFile);
        if (checkpoint != null) {
            installed = CheckpointInstaller.install(checkpoint, store, true);
            try {
                ReplicaCheckpointState state = ReplicaCheckpointState.fromBytes(installed.state());
                b.resumeFrom(LearnerCheckpoint.fromBytes(state.orderingState()), installed.instance());
            } catch (IOException | RuntimeException e) {
                installed.store().close();
                throw e;
            }
            LOG.info("{} resumes from checkpoint {} (store digest {})", node.name(), installed.instance(),
                    Long.toHexString(installed.digest()));
        } else {
            // The file holds no state of its own: it is the working copy of a checkpoint, or of nothing.
            Files.deleteIfExists(storeFile);
        }
        RingPaxosBroadcast broadcast;
        try {
            broadcast = b.build();
            broadcast.start();
        } catch (RuntimeException e) {
            if (installed != null) {
                installed.store().close();
            }
            throw e;
        }
        Replica replica;
        try {
            replica = Replica.start(config.toBuilder().store(store).build(), broadcast, replies,
                    Checkpointing.every(CHECKPOINT_INTERVAL, checkpoints, new LearnerHook(broadcast)), installed);
        } catch (RuntimeException e) {
            broadcast.close();
            if (installed != null) {
                installed.store().close();
            }
            throw e;
        }
        Incarnation inc = new Incarnation(broadcast, replica);
        broadcast.trimmedPast().thenAccept(trim -> recovery.execute(() -> catchUp(inc, trim)));
        return inc;
    }

    /**
     * The acceptors trimmed past what {@code stale} needs: replace it by one resumed from a newer
     * checkpoint of another replica. Recovery thread.
     */
    private void catchUp(Incarnation stale, long trim) {
        long have = stale.replica().stats().lastInstance();
        synchronized (lock) {
            if (closed || current != stale) {
                return;
            }
            current = null; // reported as not serving (not failed) until a checkpoint is installed
        }
        LOG.warn("{} fell behind: the acceptors trimmed their log to Paxos instance {}, past what it needs after instance "
                + "{}; fetching a newer checkpoint from {}", node.name(), trim, have, cluster.checkpointPeers(node));
        stale.close();
        long started = System.nanoTime();
        List<InetSocketAddress> peers = cluster.checkpointPeers(node);
        try (CheckpointFetcher fetcher = new CheckpointFetcher(checkpoints, FETCH_CONNECT_TIMEOUT, FETCH_READ_TIMEOUT,
                MAX_CHECKPOINT_BYTES)) {
            while (true) {
                synchronized (lock) {
                    if (closed) {
                        return;
                    }
                }
                try {
                    Checkpoint fetched = fetcher.fetch(peers, have + 1);
                    Incarnation next = start(fetched);
                    synchronized (lock) {
                        if (closed) {
                            next.close();
                            return;
                        }
                        current = next;
                    }
                    LOG.info("{} caught up by state transfer: installed checkpoint {} in {} ms", node.name(),
                            fetched.instance(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                    return;
                } catch (CheckpointFetchException e) {
                    LOG.warn("{} cannot fetch a checkpoint newer than instance {} yet: {}; retrying in {} ms", node.name(),
                            have, e.reasons(), RETRY_MILLIS);
                } catch (IOException | RuntimeException e) {
                    LOG.warn("{} cannot install the fetched checkpoint: {}; retrying in {} ms", node.name(), e.toString(),
                            RETRY_MILLIS);
                }
                Thread.sleep(RETRY_MILLIS); // a pause between attempts at peers that had nothing newer
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The current incarnation's scheduler, store and delivered instances; while catching up (no incarnation)
     * gauges read NaN and counters their last value.
     */
    @Override
    public void bindMeters(MeterRegistry registry) {
        SchedulerMeters.bind(registry, () -> {
            Replica r = replicaNow();
            return r == null ? null : r.schedulerMetrics();
        });
        OrderingMeters.bindDelivered(registry, () -> {
            Replica r = replicaNow();
            return r == null ? 0 : r.stats().lastInstance();
        });
        StoreMeters.bind(registry, () -> {
            Replica r = replicaNow();
            return r == null ? Double.NaN : r.store().size();
        }, () -> {
            Replica r = replicaNow();
            return r == null ? Double.NaN : r.storedBytes();
        }, config.capacity());
    }

    private Replica replicaNow() {
        synchronized (lock) {
            return current == null ? null : current.replica();
        }
    }

    @Override
    public NodeStatus status() throws InterruptedException {
        Incarnation inc;
        synchronized (lock) {
            inc = current;
        }
        if (inc == null) {
            return new NodeStatus(node.name(), ProcessHandle.current().pid(), false, false, 0, null, null,
                    System.currentTimeMillis());
        }
        try {
            return status(inc.replica());
        } catch (RuntimeException e) {
            // A catch-up closed this incarnation while it was being asked: not serving, not failed.
            synchronized (lock) {
                if (current == inc) {
                    throw e;
                }
            }
            return new NodeStatus(node.name(), ProcessHandle.current().pid(), false, false, 0, null, null,
                    System.currentTimeMillis());
        }
    }

    private NodeStatus status(Replica replica) throws InterruptedException {
        ReplicaStats before = replica.stats();
        long batches = before.batchesDelivered();
        long instance = before.lastInstance();
        Long digest = idle.poll(batches, instance, () -> replica.awaitApplied(instance, 1, TimeUnit.SECONDS), replica::digest,
                () -> {
                    ReplicaStats after = replica.stats();
                    return after.batchesDelivered() == batches && after.lastInstance() == instance;
                });
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), replica.isServing(), false, idle.instance(instance),
                digest, replica.failure().map(Throwable::toString).orElse(null), System.currentTimeMillis());
    }

    @Override
    public void close() {
        Incarnation inc;
        synchronized (lock) {
            closed = true;
            inc = current;
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
        if (inc != null) {
            inc.close();
        }
        checkpointServer.close();
        replies.close();
    }

    /**
     * Ring Paxos' part in a checkpoint: the learner's position, and its report to the acceptors. It
     * keeps the learner checkpoints of the replica checkpoints being written (at most a few: one is
     * written at a time), since the learner may be far ahead by the time one is durable.
     */
    private static final class LearnerHook implements Checkpointing.Hook {
        private static final int MAX_IN_FLIGHT = 8;
        private final RingPaxosBroadcast broadcast;
        private final java.util.TreeMap<Long, LearnerCheckpoint> inFlight = new java.util.TreeMap<>(); // guarded by itself

        LearnerHook(RingPaxosBroadcast broadcast) {
            this.broadcast = broadcast;
        }

        @Override
        public byte[] orderingState(long instance) {
            LearnerCheckpoint state = broadcast.learnerCheckpointAt(instance).orElseThrow(() -> new IllegalStateException(
                    "the learner kept no checkpoint at instance " + instance));
            synchronized (inFlight) {
                inFlight.put(instance, state);
                while (inFlight.size() > MAX_IN_FLIGHT) {
                    inFlight.pollFirstEntry(); // checkpoints that failed: never reported
                }
            }
            return state.toBytes();
        }

        @Override
        public void checkpointed(long instance) {
            LearnerCheckpoint state;
            synchronized (inFlight) {
                state = inFlight.get(instance);
                inFlight.headMap(instance, true).clear();
            }
            if (state != null) {
                broadcast.reportCheckpoint(state);
            }
        }
    }
}
