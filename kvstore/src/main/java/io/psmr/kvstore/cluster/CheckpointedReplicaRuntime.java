package io.psmr.kvstore.cluster;

import io.micrometer.core.instrument.MeterRegistry;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaStats;
import io.psmr.kvstore.StoreCapacity;
import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointServer;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.kvstore.metrics.StoreMeters;
import io.psmr.ordering.metrics.OrderingMeters;
import io.psmr.ordering.metrics.SchedulerMeters;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.node.NodeStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The skeleton of a replica process whose store checkpoints and that catches up by state transfer, whatever orders
 * its log (Ring Paxos' and PBFT's replica runtimes extend it): its checkpoints in {@code data/NAME/checkpoints},
 * served to the other replicas on its checkpoint port; its current <em>incarnation</em> (one run of the ordering and
 * the store replica, from one checkpoint, of type {@code I}), replaced when a catch-up installs a newer checkpoint;
 * and its status and meters, which follow the current incarnation.
 *
 * <p>A subclass opens what it needs besides, then calls {@link #open()}, which starts the first incarnation from the
 * newest intact local checkpoint ({@link #startFrom}); when its ordering says the replica fell behind, it runs a
 * catch-up on the recovery thread ({@link #runCatchUp}) that fetches a checkpoint ({@link #newFetcher}), and swaps
 * incarnations with {@link #retire} and {@link #install}.
 *
 * <p><b>Status.</b> Not serving, not failed, while there is no incarnation or {@link #catchingUp()}; otherwise the
 * incarnation's {@link #statusOf}. The digest is reported only when idle ({@link IdleDigest}, {@link #pollDigest}).
 *
 * <p><b>Threads.</b> {@link #status}, {@link #bindMeters} and {@link #close} from the node host's thread; catch-ups on
 * this runtime's one recovery thread; the incarnation is handed between them under a lock.
 *
 * @param <I> an incarnation
 */
public abstract class CheckpointedReplicaRuntime<I> implements NodeRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointedReplicaRuntime.class);
    private static final Duration FETCH_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration FETCH_READ_TIMEOUT = Duration.ofSeconds(10);
    private static final long MAX_CHECKPOINT_BYTES = 16L << 30;

    /** The cluster this replica belongs to. */
    protected final ClusterDescriptor cluster;
    /** This replica. */
    protected final ClusterNode node;
    /** How the node's ports and links are secured (its checkpoint transfers among them). */
    protected final LinkSecurity security;
    /** This replica's data directory, {@code data/NAME}. */
    protected final Path data;
    /** This replica's checkpoints, in {@code data/NAME/checkpoints}. */
    protected final CheckpointStore checkpoints;
    private final StoreCapacity capacity;
    private final ExecutorService recovery;
    private final IdleDigest idle = new IdleDigest();
    private final Object lock = new Object();
    private CheckpointServer checkpointServer; // set by open(); null without a checkpoint port
    private I current;                         // guarded by lock; null while starting or catching up
    private boolean closed;                    // guarded by lock

    /**
     * A runtime of {@code node} with its checkpoints in {@code checkpoints} (under {@code data}); starts nothing
     * but its recovery thread, named {@code catchUpThread}.
     */
    protected CheckpointedReplicaRuntime(ClusterDescriptor cluster, ClusterNode node, Path data, CheckpointStore checkpoints,
                                         String catchUpThread, LinkSecurity security) {
        this.cluster = cluster;
        this.security = java.util.Objects.requireNonNull(security, "security");
        this.node = node;
        this.data = data;
        this.checkpoints = checkpoints;
        this.capacity = cluster.settings().replicaConfig(node.replicaId()).capacity();
        this.recovery = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, catchUpThread);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Serves the checkpoints on the node's checkpoint port (if it has one) and starts the first incarnation from the
     * newest intact local checkpoint, or empty. On failure it closes what it opened and the recovery thread.
     *
     * @throws IOException if the checkpoint port cannot be bound or the checkpoint not installed
     */
    protected final void open() throws IOException {
        try {
            if (node.checkpointPort() > 0) {
                checkpointServer = CheckpointServer.start(checkpoints, node.address(node.checkpointPort()), 2, security);
            }
            Checkpoint local = newestIntactCheckpoint();
            synchronized (lock) {
                // Under the lock: a catch-up the new incarnation asks for at once must find it current.
                current = startFrom(local);
                lock.notifyAll();
            }
        } catch (IOException | RuntimeException e) {
            if (checkpointServer != null) {
                checkpointServer.close();
            }
            recovery.shutdownNow();
            throw e;
        }
    }

    /**
     * The newest local checkpoint that opens intact and passes {@link #checkUsable}, or null. A damaged one is skipped
     * with a warning naming it: an older one, or a peer's, will do.
     */
    private Checkpoint newestIntactCheckpoint() throws IOException {
        List<Long> all = checkpoints.list();
        for (int i = all.size() - 1; i >= 0; i--) {
            try {
                Checkpoint c = checkpoints.open(all.get(i));
                checkUsable(c);
                return c;
            } catch (IOException | RuntimeException e) {
                LOG.warn("{} skips its local checkpoint {}: {}", node.name(), all.get(i), e.getMessage());
            }
        }
        return null;
    }

    /**
     * Refuses a local checkpoint this protocol cannot resume from (one that opened intact); accepts all by default.
     *
     * @throws IOException if it cannot be read, or another exception naming what is missing
     */
    protected void checkUsable(Checkpoint checkpoint) throws IOException {
    }

    /**
     * Starts an incarnation from {@code checkpoint} (this replica's own), or empty from the first instance if null.
     * Called once, by {@link #open}, on the constructing thread, holding the lock that {@link #retire} and
     * {@link #awaitIncarnation} take: it may ask for a catch-up ({@link #runCatchUp}), but must not wait for one.
     */
    protected abstract I startFrom(Checkpoint checkpoint) throws IOException;

    /** The store replica of {@code incarnation}. */
    protected abstract Replica replicaOf(I incarnation);

    /** Closes {@code incarnation}, its ordering and its store replica. */
    protected abstract void closeIncarnation(I incarnation);

    /** The status of a running {@code incarnation}; may use {@link #pollDigest}. */
    protected abstract NodeStatus statusOf(I incarnation) throws InterruptedException;

    /** Whether a catch-up is under way while the incarnation still runs (reported as not serving); false by default. */
    protected boolean catchingUp() {
        return false;
    }

    /** The detail of the status while not serving for a catch-up, or null for none. */
    protected String catchingUpDetail() {
        return null;
    }

    /** Closes what the subclass opened besides (after the incarnation and the checkpoint server); nothing by default. */
    protected void closeOwn() {
    }

    // ---------------------------------------------------------------- catch-up, for subclasses

    /** Runs {@code catchUp} on the recovery thread (any thread: it only hands over). */
    protected final void runCatchUp(Runnable catchUp) {
        recovery.execute(catchUp);
    }

    /** A fetcher of peers' checkpoints into this replica's store; the caller closes it. */
    protected final CheckpointFetcher newFetcher() {
        return newFetcher(checkpoints);
    }

    /** A fetcher of peers' checkpoints into {@code into} (a staging store, for one); the caller closes it. */
    protected final CheckpointFetcher newFetcher(CheckpointStore into) {
        return new CheckpointFetcher(into, FETCH_CONNECT_TIMEOUT, FETCH_READ_TIMEOUT, MAX_CHECKPOINT_BYTES, security);
    }

    /** Whether {@link #close} was called. */
    protected final boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    /**
     * Waits until the first incarnation has started and returns it, or null once closed: a replica can fall behind
     * while it is still starting. Recovery thread.
     */
    protected final I awaitIncarnation() throws InterruptedException {
        synchronized (lock) {
            while (current == null && !closed) {
                lock.wait(100);
            }
            return closed ? null : current;
        }
    }

    /**
     * Takes {@code stale} out of service (the status then says not serving, not failed) unless closed or already
     * replaced; the caller then closes it. Recovery thread.
     *
     * @return whether it was the current incarnation and is now retired
     */
    protected final boolean retire(I stale) {
        synchronized (lock) {
            if (closed || current != stale) {
                return false;
            }
            current = null;
            return true;
        }
    }

    /**
     * Makes {@code next} the current incarnation, or closes it if this runtime was closed meanwhile. Recovery thread.
     *
     * @return whether it was installed
     */
    protected final boolean install(I next) {
        synchronized (lock) {
            if (!closed) {
                current = next;
                return true;
            }
        }
        closeIncarnation(next);
        return false;
    }

    // ---------------------------------------------------------------- status and meters

    /** What a status poll found: the instance to report and the idle digest there, or null while busy. */
    protected record DigestPoll(long instance, Long digest) {
    }

    /**
     * Polls {@code replica}'s idle digest: taken only when nothing was delivered since the previous poll, everything
     * delivered executed, and nothing was delivered while it was computed.
     */
    protected final DigestPoll pollDigest(Replica replica) throws InterruptedException {
        ReplicaStats before = replica.stats();
        long batches = before.batchesDelivered();
        long instance = before.lastInstance();
        Long digest = idle.poll(batches, instance, () -> replica.awaitApplied(instance, 1, TimeUnit.SECONDS), replica::digest,
                () -> {
                    ReplicaStats after = replica.stats();
                    return after.batchesDelivered() == batches && after.lastInstance() == instance;
                });
        return new DigestPoll(idle.instance(instance), digest);
    }

    @Override
    public final NodeStatus status() throws InterruptedException {
        I inc;
        synchronized (lock) {
            inc = current;
        }
        if (inc == null || catchingUp()) {
            return notServing();
        }
        try {
            return statusOf(inc);
        } catch (RuntimeException e) {
            // A catch-up closed this incarnation while it was being asked: not serving, not failed.
            synchronized (lock) {
                if (current == inc) {
                    throw e;
                }
            }
            return notServing();
        }
    }

    private NodeStatus notServing() {
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), false, false, 0, null, null,
                System.currentTimeMillis(), catchingUpDetail());
    }

    /**
     * The current incarnation's scheduler, store and delivered instances; while catching up (no incarnation) gauges
     * read NaN and counters their last value.
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
        }, capacity);
    }

    private Replica replicaNow() {
        synchronized (lock) {
            return current == null ? null : replicaOf(current);
        }
    }

    /**
     * Stops the catch-up (waiting up to 30 s for one that is installing a checkpoint), closes the incarnation, the
     * checkpoint server and then {@link #closeOwn}.
     */
    @Override
    public final void close() {
        I inc;
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
            closeIncarnation(inc);
        }
        if (checkpointServer != null) {
            checkpointServer.close();
        }
        closeOwn();
    }
}
