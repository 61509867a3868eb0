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
 * <p><b>Digest.</b> Reported only when idle ({@link IdleDigest}): no batch delivered since the
 * previous poll, everything delivered executed, and nothing delivered while it was computed.
 */
final class ReplicaRuntime implements NodeRuntime {

    private final ClusterNode node;
    private final RingPaxosBroadcast broadcast;
    private final ReplyServer replies;
    private final Replica replica;
    private final IdleDigest idle = new IdleDigest();

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
        replica.close();
        broadcast.close();
        replies.close();
    }
}
