package io.psmr.kvstore.ringpaxos;

import io.psmr.kvstore.Checkpointing;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaCheckpointState;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetchException;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointInstaller;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.checkpoint.InstalledCheckpoint;
import io.psmr.kvstore.cluster.CheckpointedReplicaRuntime;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterTlsFiles;
import io.psmr.kvstore.net.ReplyServer;
import io.psmr.kvstore.net.ReplyServerConfig;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.ringpaxos.LearnerCheckpoint;
import io.psmr.ordering.ringpaxos.net.RingPaxosBroadcast;
import io.psmr.ordering.transport.LinkSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Ring Paxos replica process: a Ring Paxos learner on its fixed port, the {@link Replica}
 * (scheduler and Chronicle Map) subscribed to it, a {@link ReplyServer} on its reply port, and a
 * {@link io.psmr.kvstore.checkpoint.CheckpointServer} on its checkpoint port.
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
 * <p>Checkpoints, incarnations, status and meters are {@link CheckpointedReplicaRuntime}'s.
 *
 * <p><b>Threads.</b> {@link #status} and {@link #close} from the node command's thread; catching up
 * runs on this runtime's own recovery thread.
 */
public final class RingPaxosReplicaRuntime extends CheckpointedReplicaRuntime<RingPaxosReplicaRuntime.Incarnation> {

    /**
     * Delivered instances between checkpoints. At most half the acceptors' log capacity (1,024 by
     * default), so that the next checkpoint is always reachable before a full log waits for it.
     */
    public static final int CHECKPOINT_INTERVAL = 512;

    private static final Logger LOG = LoggerFactory.getLogger(RingPaxosReplicaRuntime.class);
    private static final long RETRY_MILLIS = 1_000;

    private final ReplicaConfig config;
    private final Path storeFile;
    private final ReplyServer replies;

    /** One run of the learner and the replica, from one checkpoint (or from the start). */
    record Incarnation(RingPaxosBroadcast broadcast, Replica replica) {
        void close() {
            replica.close();
            broadcast.close();
        }
    }

    private RingPaxosReplicaRuntime(ClusterDescriptor cluster, ClusterNode node, Path data, CheckpointStore checkpoints,
                                    ReplyServer replies, LinkSecurity security) {
        super(cluster, node, data, checkpoints, "psmr-replica-catch-up", security);
        this.config = cluster.settings().replicaConfig(node.replicaId());
        this.storeFile = data.resolve("store.cm");
        this.replies = replies;
    }

    /**
     * Starts replica {@code node}: its reply server, its checkpoint server, and the learner and the replica from its
     * newest intact local checkpoint, or from the first instance.
     *
     * @throws UncheckedIOException if a port cannot be bound or the checkpoint not installed
     */
    public static RingPaxosReplicaRuntime start(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        Path data = dir.dataDir(node.name());
        ReplyServer rs = null;
        try {
            Files.createDirectories(data);
            CheckpointStore checkpoints = CheckpointStore.open(data, CheckpointStore.DEFAULT_RETAIN); // in data/NAME/checkpoints/
            LinkSecurity security = ClusterTlsFiles.forNode(dir.path(), cluster, node);
            rs = ReplyServer.start(node.address(node.replyPort()), ReplyServerConfig.defaults().withSecurity(security));
            RingPaxosReplicaRuntime rt = new RingPaxosReplicaRuntime(cluster, node, data, checkpoints, rs, security);
            rt.open();
            return rt;
        } catch (IOException | RuntimeException e) {
            if (rs != null) {
                rs.close();
            }
            throw e instanceof IOException io ? new UncheckedIOException("replica " + node.name() + " cannot start: "
                    + io.getMessage(), io) : (RuntimeException) e;
        }
    }

    @Override
    protected Incarnation startFrom(Checkpoint checkpoint) throws IOException {
        return start(checkpoint);
    }

    /** Starts the learner and the replica from {@code checkpoint}, or from the first instance if null. */
    private Incarnation start(Checkpoint checkpoint) throws IOException {
        InstalledCheckpoint installed = null;
        RingPaxosBroadcast.Builder b = RingPaxosBroadcast.builder(cluster.ringPaxosConfig(), node.paxosId(),
                        cluster.transportConfig().withSecurity(security), cluster.peers())
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
        broadcast.trimmedPast().thenAccept(trim -> runCatchUp(() -> catchUp(inc, trim)));
        return inc;
    }

    /**
     * The acceptors trimmed past what {@code stale} needs: replace it by one resumed from a newer
     * checkpoint of another replica. Recovery thread.
     */
    private void catchUp(Incarnation stale, long trim) {
        long have = stale.replica().stats().lastInstance();
        if (!retire(stale)) {
            return;
        }
        LOG.warn("{} fell behind: the acceptors trimmed their log to Paxos instance {}, past what it needs after instance "
                + "{}; fetching a newer checkpoint from {}", node.name(), trim, have, cluster.checkpointPeers(node));
        stale.close();
        long started = System.nanoTime();
        List<InetSocketAddress> peers = cluster.checkpointPeers(node);
        try (CheckpointFetcher fetcher = newFetcher()) {
            while (!isClosed()) {
                try {
                    Checkpoint fetched = fetcher.fetch(peers, have + 1);
                    if (install(start(fetched))) {
                        LOG.info("{} caught up by state transfer: installed checkpoint {} in {} ms", node.name(),
                                fetched.instance(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                    }
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

    @Override
    protected Replica replicaOf(Incarnation incarnation) {
        return incarnation.replica();
    }

    @Override
    protected void closeIncarnation(Incarnation incarnation) {
        incarnation.close();
    }

    @Override
    protected NodeStatus statusOf(Incarnation incarnation) throws InterruptedException {
        Replica replica = incarnation.replica();
        DigestPoll poll = pollDigest(replica);
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), replica.isServing(), false, poll.instance(),
                poll.digest(), replica.failure().map(Throwable::toString).orElse(null), System.currentTimeMillis());
    }

    /** The reply server, after the checkpoint server. */
    @Override
    protected void closeOwn() {
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
