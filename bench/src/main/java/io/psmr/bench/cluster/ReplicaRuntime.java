package io.psmr.bench.cluster;

import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaStats;
import io.psmr.kvstore.net.ReplyServer;
import io.psmr.kvstore.net.ReplyServerConfig;
import io.psmr.ordering.ringpaxos.net.RingPaxosBroadcast;
import io.psmr.proxy.cluster.ClusterDescriptor;
import io.psmr.proxy.cluster.ClusterNode;
import io.psmr.proxy.cluster.NodeStatus;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A replica process: a Ring Paxos learner on its fixed port, the {@link Replica} (scheduler and
 * Chronicle Map) subscribed to it, and a {@link ReplyServer} on its reply port.
 *
 * <p><b>Digest.</b> A replica's digest is comparable with another's only at the same instance with
 * nothing executing. {@link #status} therefore reports one only when no batch arrived since the
 * previous poll, and only if none arrived while it was computed; otherwise the status says busy.
 */
final class ReplicaRuntime implements NodeRuntime {

    private final ClusterNode node;
    private final RingPaxosBroadcast broadcast;
    private final ReplyServer replies;
    private final Replica replica;
    private long lastSeenBatches = -1;
    private long digestInstance = -1;
    private Long digest;

    ReplicaRuntime(ClusterDescriptor cluster, ClusterNode node) {
        this.node = node;
        this.broadcast = RingPaxosBroadcast.builder(cluster.ringPaxosConfig(), node.paxosId(), cluster.transportConfig(),
                cluster.peers()).learnerBind(new InetSocketAddress(cluster.host(), node.port())).build();
        ReplyServer rs = null;
        try {
            broadcast.start();
            rs = ReplyServer.start(new InetSocketAddress(cluster.host(), node.replyPort()), ReplyServerConfig.defaults());
            this.replica = Replica.start(cluster.settings().replicaConfig(node.replicaId()), broadcast, rs);
        } catch (RuntimeException e) {
            if (rs != null) {
                rs.close();
            }
            broadcast.close();
            throw e;
        }
        this.replies = rs;
    }

    @Override
    public NodeStatus status() throws InterruptedException {
        ReplicaStats before = replica.stats();
        long batches = before.batchesDelivered();
        String failure = replica.failure().map(Throwable::toString).orElse(null);
        if (batches != lastSeenBatches) {
            lastSeenBatches = batches;
            digest = null; // busy: wait for a quiet poll
        } else if (digest == null || digestInstance != before.lastInstance()) {
            long instance = before.lastInstance();
            if (replica.awaitApplied(instance, 1, TimeUnit.SECONDS)) {
                long d = replica.digest();
                ReplicaStats after = replica.stats();
                if (after.batchesDelivered() == batches && after.lastInstance() == instance) {
                    digest = d;
                    digestInstance = instance;
                }
            }
        }
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), replica.isServing(), false,
                digest == null ? before.lastInstance() : digestInstance, digest, failure, System.currentTimeMillis());
    }

    @Override
    public void close() {
        replica.close();
        broadcast.close();
        replies.close();
    }
}
