package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A Ring Paxos acceptor as one node of a process cluster: its durable log in a directory of its own,
 * on a fixed address, reporting its {@link NodeStatus} when polled.
 *
 * <p><b>Threads.</b> The acceptor serves from its own event loop; {@link #status} and {@link #close}
 * are called from the one thread that hosts the node.
 */
public final class AcceptorRuntime implements NodeRuntime {

    private final String name;
    private final RingPaxosAcceptor acceptor;
    private boolean lastCoordinator; // the hosting thread only

    /**
     * Starts acceptor {@code paxosId} of {@code config}, listening on {@code bind}, its log in {@code dataDir}.
     *
     * @param name  the node's name, for its status
     * @param peers every Ring Paxos node's address, by id
     */
    public AcceptorRuntime(String name, RingPaxosConfig config, int paxosId, TransportConfig transport,
                           InetSocketAddress bind, Map<Integer, InetSocketAddress> peers, Path dataDir) {
        this.name = name;
        this.acceptor = RingPaxosAcceptor.start(config, paxosId, transport, bind, peers, dataDir);
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
        return new NodeStatus(name, ProcessHandle.current().pid(), failure == null, lastCoordinator, 0, null, failure,
                System.currentTimeMillis());
    }

    @Override
    public void close() {
        acceptor.close();
    }
}
