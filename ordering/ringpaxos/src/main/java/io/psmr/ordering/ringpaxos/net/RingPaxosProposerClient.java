package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.ringpaxos.Proposer;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@link OrderingClient} that only proposes: one Ring Paxos {@link Proposer} node, no learner. For a process
 * that has values ordered but does not deliver them (a load generator, a client proxy whose replies come from
 * replicas).
 *
 * <h2>Proposals</h2>
 * {@link #propose} queues a copy of the value: at most {@code maxPendingProposals} queued or in flight, beyond which
 * the future fails at once with {@link OverloadedException} and the value is not ordered. The proposer core takes
 * values as its window allows and resends each until an acceptor tells it the value is decided; the future then
 * completes with {@link OrderingClient#UNKNOWN_INSTANCE} (without a learner the client never learns the value's
 * position). Decided means ordered: every learner delivers it once, provided this proposer id's sequence numbers
 * are fresh (see below).
 *
 * <h2>Restart: {@code firstSeq}</h2>
 * Learners deduplicate per proposer id by sequence number, and this client keeps no state on disk. A process that
 * starts a client with a proposer id an earlier process used must pass a {@code firstSeq} above every sequence
 * number that process used (it used at most {@code firstSeq + proposals made} of its own run), for example from a
 * counter the caller keeps in a file. Proposals the dead process left undecided may still be delivered once, or be
 * dropped as duplicates; they were never acknowledged. See {@link Proposer}.
 *
 * <h2>Close</h2>
 * {@link #close()} stops the node; proposals still queued fail with {@link BroadcastClosedException} and were not
 * ordered; proposals already sent fail with {@link BroadcastClosedException} too, but <b>may</b> have been ordered
 * (the message says so).
 *
 * <h2>Threads</h2>
 * All methods may be called from any thread. Futures complete on the proposer's event-loop thread: dependent
 * stages must not block.
 */
public final class RingPaxosProposerClient implements OrderingClient {

    private final ProposerEndpoint endpoint;
    private final int proposerId;
    private final int maxValueBytes;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RingPaxosProposerClient(ProposerEndpoint endpoint, int proposerId, int maxValueBytes) {
        this.endpoint = endpoint;
        this.proposerId = proposerId;
        this.maxValueBytes = maxValueBytes;
    }

    /**
     * Binds the proposer's port and starts its node; the client takes proposals at once.
     *
     * @param config              the cluster
     * @param proposerId          this client's proposer id, one of {@link RingPaxosConfig#proposers()}
     * @param firstSeq            the first sequence number, at least 1: above every number an earlier process with
     *                            this proposer id used (1 for the id's first use)
     * @param transport           transport settings (its {@code maxValueBytes} bounds a value)
     * @param bind                where the proposer listens for decisions (port 0 picks a free one; the acceptors
     *                            must find it in their {@code peers})
     * @param peers               every node's address by id (see {@link RingPaxosNode#start})
     * @param maxPendingProposals proposals queued or in flight at once, at least 1
     */
    public static RingPaxosProposerClient start(RingPaxosConfig config, int proposerId, long firstSeq,
                                                RingPaxosTransportConfig transport, InetSocketAddress bind,
                                                Map<Integer, InetSocketAddress> peers, int maxPendingProposals) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(peers, "peers");
        ProposerEndpoint endpoint = new ProposerEndpoint(config, proposerId, firstSeq, transport, bind, peers,
                maxPendingProposals, true);
        return new RingPaxosProposerClient(endpoint, proposerId, transport.maxValueBytes());
    }

    /** This client's proposer id. */
    public int proposerId() {
        return proposerId;
    }

    /** Where the proposer listens. */
    public InetSocketAddress localAddress() {
        return endpoint.node().localAddress();
    }

    /** The proposer's node (for its counters). */
    public RingPaxosNode node() {
        return endpoint.node();
    }

    /**
     * Does nothing: the client takes proposals from
     * {@link #start(RingPaxosConfig, int, long, RingPaxosTransportConfig, InetSocketAddress, Map, int)} on.
     *
     * @throws IllegalStateException if closed
     */
    @Override
    public void start() {
        if (closed.get()) {
            throw new IllegalStateException("proposer client is closed and cannot be started again");
        }
    }

    @Override
    public CompletableFuture<Long> propose(byte[] value) {
        ProposerEndpoint.validate(value, maxValueBytes);
        if (closed.get()) {
            return CompletableFuture.failedFuture(new BroadcastClosedException("proposer client is closed; the value was not ordered"));
        }
        // A proposal racing with close() is failed by the endpoint (its node refuses the task).
        return endpoint.submit(value.clone());
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            endpoint.close();
        }
    }

    @Override
    public String toString() {
        return "RingPaxosProposerClient[proposer " + proposerId + " at " + localAddress() + "]";
    }
}
