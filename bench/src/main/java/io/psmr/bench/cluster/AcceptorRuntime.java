package io.psmr.bench.cluster;

import io.psmr.ordering.ringpaxos.net.RingPaxosAcceptor;
import io.psmr.proxy.cluster.ClusterDescriptor;
import io.psmr.proxy.cluster.ClusterDirectory;
import io.psmr.proxy.cluster.ClusterNode;
import io.psmr.proxy.cluster.NodeStatus;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A Ring Paxos acceptor with its durable log in {@code DIR/data/NAME}, on its fixed port. */
final class AcceptorRuntime implements NodeRuntime {

    private final ClusterNode node;
    private final RingPaxosAcceptor acceptor;
    private boolean lastCoordinator; // the NodeCommand thread only

    AcceptorRuntime(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        this.node = node;
        this.acceptor = RingPaxosAcceptor.start(cluster.ringPaxosConfig(), node.paxosId(), cluster.transportConfig(),
                new InetSocketAddress(cluster.host(), node.port()), cluster.peers(), dir.dataDir(node.name()));
    }

    @Override
    public NodeStatus status() throws InterruptedException {
        String failure = null;
        try {
            lastCoordinator = acceptor.isCoordinator().get(1, TimeUnit.SECONDS);
        } catch (TimeoutException busy) {
            // A loaded event loop, not a dead one: report what it said last and ask again next poll.
        } catch (ExecutionException | RuntimeException e) {
            lastCoordinator = false;
            failure = "the acceptor's node stopped: " + (e.getCause() != null ? e.getCause() : e);
        }
        boolean coordinator = lastCoordinator;
        return new NodeStatus(node.name(), ProcessHandle.current().pid(), failure == null, coordinator, 0, null, failure,
                System.currentTimeMillis());
    }

    @Override
    public void close() {
        acceptor.close();
    }
}
