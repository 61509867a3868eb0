package io.psmr.ordering.ringpaxos.net;

import io.micrometer.core.instrument.MeterRegistry;
import io.psmr.ordering.metrics.OrderingMeters;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.ringpaxos.AcceptorNode;
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
    private final int logCapacity;
    private volatile boolean lastCoordinator; // written by the hosting thread, read by the scraper
    private volatile long coordinatorChanges; // written by the hosting thread only
    private volatile int logSize;             // as read at the last status poll

    /**
     * Starts acceptor {@code paxosId} of {@code config}, listening on {@code bind}, its log in {@code dataDir}.
     *
     * @param name  the node's name, for its status
     * @param peers every Ring Paxos node's address, by id
     */
    public AcceptorRuntime(String name, RingPaxosConfig config, int paxosId, RingPaxosTransportConfig transport,
                           InetSocketAddress bind, Map<Integer, InetSocketAddress> peers, Path dataDir) {
        this.name = name;
        this.acceptor = RingPaxosAcceptor.start(config, paxosId, transport, bind, peers, dataDir);
        this.logCapacity = config.logCapacity();
    }

    /**
     * Leadership (as seen at each status poll, every 100 ms: a change and its reversal between two polls
     * go unseen) and the log's size (read at the last poll).
     */
    @Override
    public void bindMeters(MeterRegistry registry) {
        OrderingMeters.bindLeadership(registry, () -> lastCoordinator, () -> coordinatorChanges);
        OrderingMeters.bindAcceptorLog(registry, () -> logSize, logCapacity);
    }

    @Override
    public NodeStatus status() throws InterruptedException {
        String failure = null;
        try {
            // One trip to the event loop reads both: the log's size is the loop's to read.
            long[] seen = acceptor.node().call(core -> new long[] {((AcceptorNode) core).isCoordinator() ? 1 : 0,
                    ((AcceptorNode) core).storage().size()}).get(1, TimeUnit.SECONDS);
            boolean coordinator = seen[0] == 1;
            if (coordinator != lastCoordinator) {
                coordinatorChanges = coordinatorChanges + 1;
            }
            lastCoordinator = coordinator;
            logSize = (int) seen[1];
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
