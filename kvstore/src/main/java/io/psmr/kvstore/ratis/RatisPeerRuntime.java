package io.psmr.kvstore.ratis;

import io.psmr.kvstore.cluster.IdleDigest;
import io.psmr.kvstore.cluster.NodeHost;
import io.micrometer.core.instrument.MeterRegistry;
import io.psmr.kvstore.metrics.StoreMeters;
import io.psmr.ordering.metrics.OrderingMeters;
import io.psmr.ordering.metrics.SchedulerMeters;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterTlsFiles;
import io.psmr.ordering.node.NodeStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A replica of a Ratis cluster: a {@link RatisPeer} (Raft server on its fixed port, psmr executing
 * the log, Chronicle Map in memory) with its Raft log and snapshots in {@code DIR/data/NAME}. A
 * restart finds that directory non-empty and recovers from it: the latest snapshot, then the log
 * after it, or the leader's snapshot if the leader purged that log.
 *
 * <p><b>Failure.</b> A peer whose Ratis thread died has stopped ({@link RatisPeer#failure()}); its status
 * says why, and {@link NodeHost} ends the process with exit code 1 rather than leave a live-looking one.
 *
 * <p><b>Digest.</b> Reported only when idle: everything committed has executed (applied index equal
 * to the committed index), the same as at the previous poll, and unchanged while it was computed.
 */
public final class RatisPeerRuntime implements NodeRuntime {

    /** Entries between automatic snapshots; each purges the log up to it, keeping the disk bounded. */
    static final long SNAPSHOT_EVERY = 10_000;

    private final ClusterNode node;
    private final RatisPeer peer;
    private final IdleDigest idle = new IdleDigest();
    private final io.psmr.kvstore.StoreCapacity capacity;
    private volatile boolean leader;        // as seen at the last status poll
    private volatile long leaderChanges;    // written by the hosting thread only

    public RatisPeerRuntime(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        this.node = node;
        this.capacity = cluster.settings().replicaConfig(node.replicaId()).capacity();
        Path storage = dir.dataDir(node.name());
        try {
            this.peer = RatisPeer.start(cluster.settings().replicaConfig(node.replicaId()), cluster.raftGroup(),
                    ClusterDescriptor.raftPeerId(node), node.address(node.port()), storage, SNAPSHOT_EVERY, hasState(storage),
                    RatisDurability.SYNC, ClusterTlsFiles.forNode(dir.path(), cluster, node));
        } catch (IOException e) {
            throw new UncheckedIOException("replica " + node.name() + ": " + e.getMessage(), e);
        }
    }

    private static boolean hasState(Path storage) {
        if (!Files.isDirectory(storage)) {
            return false;
        }
        try (Stream<Path> s = Files.list(storage)) {
            return s.findAny().isPresent();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + storage, e);
        }
    }

    /**
     * The scheduler, the store, the applied log index (Ratis' instances) and leadership as seen at each
     * status poll (every 100 ms).
     */
    @Override
    public void bindMeters(MeterRegistry registry) {
        SchedulerMeters.bind(registry, () -> peer.replica().schedulerMetrics());
        OrderingMeters.bindDelivered(registry, () -> Math.max(0, peer.replica().appliedIndex()));
        OrderingMeters.bindLeadership(registry, () -> leader, () -> leaderChanges);
        StoreMeters.bind(registry, () -> peer.replica().store().size(), () -> peer.replica().storedBytes(), capacity);
    }

    @Override
    public NodeStatus status() throws InterruptedException {
        RatisReplica r = peer.replica();
        boolean leading = peer.isLeader();
        if (leading != leader) {
            leaderChanges = leaderChanges + 1;
            leader = leading;
        }
        long applied = r.appliedIndex();
        long committed = peer.committedIndex();
        Long digest = idle.poll(applied, applied, () -> applied == committed, r::digest,
                () -> r.appliedIndex() == applied && peer.committedIndex() == committed);
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), committed >= 0, leading,
                idle.instance(applied), digest, peer.failure().map(Throwable::getMessage).orElse(null),
                System.currentTimeMillis());
    }

    @Override
    public void close() {
        peer.close();
    }
}
