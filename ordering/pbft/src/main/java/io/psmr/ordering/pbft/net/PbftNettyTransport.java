package io.psmr.ordering.pbft.net;

import io.psmr.ordering.pbft.EnvelopeCodec;
import io.psmr.ordering.pbft.PbftCodec;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftEnvelope;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PillarNetwork;
import io.psmr.ordering.pbft.Refusal;
import io.psmr.ordering.pbft.RefusedRequests;
import io.psmr.ordering.pbft.RequestIntake;
import io.psmr.ordering.agent.BoundedQueue;
import io.psmr.ordering.transport.FrameServer;
import io.psmr.ordering.transport.RefusalLog;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One PBFT replica's {@link PillarNetwork} over TCP, with COP's private connections (seed 000 §4.2.3): pillar
 * {@code p} of this replica listens on its own port and keeps one outgoing connection to pillar {@code p} of every
 * other replica; only pillar {@code p}'s agent writes to them and pillar {@code p}'s own event loop serves them, so
 * the transport imposes no order, and no waiting, across pillars. A {@link io.psmr.ordering.pbft.PbftReplicaNode}
 * built on it runs as in one JVM.
 *
 * <p>Built on the shared helper {@link io.psmr.ordering.transport}: {@link io.psmr.ordering.transport.ReconnectingLink}
 * connects and reconnects with backoff, {@link FrameServer} and {@link io.psmr.ordering.transport.LengthFraming} frame
 * inbound connections, {@link RefusalLog} refuses bad peers (closes only that connection, counts every refusal by
 * {@link RefusalReason}, logs one WARN per peer per minute).
 *
 * <h2>Wire</h2>
 * Every frame has a 4-byte length prefix. An outgoing connection starts with a {@link PillarHello} (this replica, the
 * peer, the pillar), then carries {@link EnvelopeCodec} frames. The receiving port refuses a bad hello, an unknown
 * replica, a pillar not its own (in particular one ≥ Np), a second connection of the same replica, a frame longer than
 * {@link PbftTransportConfig#maxFrameBytes()}, a frame shorter than an envelope header, and an envelope whose
 * {@code from}, {@code to} or {@code pillar} differs from the hello. MACs and the rest of the envelope are checked by
 * the pillar's agent and core, which drop and count what fails.
 *
 * <h2>Bounds</h2>
 * Each outgoing connection has a send queue of {@link PbftTransportConfig#sendQueueFrames()} frames (kept while the
 * peer is unreachable, so a reconnect loses nothing that fits), each pillar an inbox of
 * {@link PbftTransportConfig#inboxFrames()} frames and one of {@link PbftTransportConfig#requestInboxCapacity()}
 * requests. What does not fit is dropped and counted by {@link DropReason}; {@link #send} never blocks.
 *
 * <h2>Threads</h2>
 * {@link #send} on the agent thread of the envelope's pillar; {@link #submit}, {@link #stats()},
 * {@link #localAddress}, {@link #close()} from any thread; the inboxes have one consumer each, the pillar's agent.
 * {@link #send} is also safe from another thread (each connection's send queue takes many producers): the slow-leader
 * timer of {@code io.psmr.ordering.pbft.byzantine.ByzantinePillarNetwork} relies on it.
 */
public final class PbftNettyTransport implements PillarNetwork, RequestIntake, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PbftNettyTransport.class);

    private final int replica;
    private final int replicas;
    private final int pillars;
    private final PbftTransportConfig config;
    private final RefusalLog refusals;
    private final Map<DropReason, LongAdder> drops = new EnumMap<>(DropReason.class);
    private final List<PillarConnections> connections = new ArrayList<>();
    private volatile boolean closed;
    private volatile RefusedRequests refusedRequests;

    private PbftNettyTransport(int replica, PbftConfig pbft, List<InetSocketAddress> bind, PeerAddresses peers,
                               PbftTransportConfig config) {
        this.replica = replica;
        this.replicas = pbft.replicaCount();
        this.pillars = pbft.pillars();
        this.config = config;
        for (DropReason r : DropReason.values()) {
            drops.put(r, new LongAdder());
        }
        this.refusals = RefusalLog.perMinute(LOG, () -> "PBFT replica " + replica);
        try {
            for (int p = 0; p < pillars; p++) {
                connections.add(new PillarConnections(replica, replicas, pillars, p, bind.get(p), peers, config,
                        refusals, this::drop));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Binds one port per pillar and starts connecting to the same pillar of every other replica.
     *
     * @param replica this replica's id, {@code 0..n-1}
     * @param pbft    the cluster (its replica count and Np)
     * @param bind    where each pillar listens, one per pillar (port 0 picks a free port, see {@link #localAddress})
     * @param peers   where the pillars of the other replicas listen (asked at every attempt)
     * @param config  bounds and timings
     * @throws IllegalArgumentException     if the replica id or the number of bind addresses does not fit {@code pbft}
     * @throws java.io.UncheckedIOException naming the address, if a port cannot be bound (nothing stays open then)
     */
    public static PbftNettyTransport start(int replica, PbftConfig pbft, List<InetSocketAddress> bind,
                                           PeerAddresses peers, PbftTransportConfig config) {
        Objects.requireNonNull(pbft, "pbft");
        Objects.requireNonNull(peers, "peers");
        Objects.requireNonNull(config, "config");
        if (replica < 0 || replica >= pbft.replicaCount()) {
            throw new IllegalArgumentException("replica " + replica + " is not one of 0.." + (pbft.replicaCount() - 1));
        }
        if (bind.size() != pbft.pillars()) {
            throw new IllegalArgumentException("replica " + replica + ": " + bind.size() + " bind addresses for "
                    + pbft.pillars() + " pillars (one port per pillar)");
        }
        return new PbftNettyTransport(replica, pbft, List.copyOf(bind), peers, config);
    }

    /** This replica's id. */
    public int replica() {
        return replica;
    }

    /** The address pillar {@code pillar}'s port listens on. Any thread. */
    public InetSocketAddress localAddress(int pillar) {
        return connections.get(pillar).localAddress();
    }

    /**
     * Queues {@code envelope} on the private connection of its pillar to its receiver, or drops it (counted). Called
     * on the agent thread of {@code envelope.pillar()}; safe from another thread too (see the class Javadoc); never
     * blocks.
     */
    @Override
    public boolean send(PbftEnvelope envelope) {
        if (closed) {
            drop(DropReason.CLOSED);
            return false;
        }
        int to = envelope.to();
        int pillar = envelope.pillar();
        if (envelope.from() != replica || to == replica || to < 0 || to >= replicas || pillar < 0 || pillar >= pillars) {
            drop(DropReason.UNROUTABLE);
            return false;
        }
        byte[] frame = EnvelopeCodec.encode(envelope);
        if (frame.length > config.maxFrameBytes()) {
            drop(DropReason.FRAME_TOO_LARGE);
            return false;
        }
        return connections.get(pillar).link(to).offer(frame);
    }

    /**
     * {@inheritDoc} Here the pillar's own event loop, which serves its port and its connections to the peers: its
     * agent then steps a frame on the thread that read it and queues its envelopes for the same thread.
     */
    @Override
    public Optional<ScheduledExecutorService> eventLoop(int pillar) {
        return Optional.of(pillar(replica, pillar).loop());
    }

    /** {@inheritDoc} Only this replica's pillars exist here. */
    @Override
    public BoundedQueue<byte[]> frames(int replica, int pillar) {
        return pillar(replica, pillar).frames();
    }

    /** {@inheritDoc} Only this replica's pillars exist here. */
    @Override
    public BoundedQueue<byte[]> requests(int replica, int pillar) {
        return pillar(replica, pillar).requests();
    }

    /**
     * Hands a client request to {@code pillar}, encoded. Any thread.
     *
     * @return false if that pillar's request inbox is full (nothing was queued)
     */
    @Override
    public boolean submit(int pillar, Request request) {
        return pillar(replica, pillar).requests().offer(PbftCodec.encode(request));
    }

    /** Where refusals of requests {@link #submit submitted} here go (the replica's proposer); replaces any earlier one. */
    @Override
    public void onRefused(RefusedRequests listener) {
        this.refusedRequests = listener;
    }

    /** Tells the listener set by {@link #onRefused}, if any. */
    @Override
    public void refused(int r, int pillar, Request request, Refusal reason) {
        RefusedRequests l = refusedRequests;
        if (l != null && r == replica) {
            l.refused(request, pillar, reason);
        }
    }

    private PillarConnections pillar(int r, int pillar) {
        if (r != replica || pillar < 0 || pillar >= pillars) {
            throw new IllegalArgumentException("this transport serves pillars 0.." + (pillars - 1) + " of replica "
                    + replica + ", not pillar " + pillar + " of replica " + r);
        }
        return connections.get(pillar);
    }

    private void drop(DropReason reason) {
        drops.get(reason).increment();
    }

    /** The counters now. Any thread. */
    public PbftTransportStats stats() {
        Map<RefusalReason, Long> refused = new EnumMap<>(RefusalReason.class);
        for (RefusalReason r : RefusalReason.values()) {
            refused.put(r, refusals.refusals(r));
        }
        refused.put(RefusalReason.CONNECTION_LIMIT, refusals.refusals(FrameServer.CONNECTION_LIMIT));
        Map<DropReason, Long> dropped = new EnumMap<>(DropReason.class);
        drops.forEach((r, n) -> dropped.put(r, n.sum()));
        List<Integer> out = new ArrayList<>();
        List<Integer> in = new ArrayList<>();
        for (PillarConnections c : connections) {
            out.add(closed ? 0 : c.outbound());
            in.add(closed ? 0 : c.inbound());
        }
        return new PbftTransportStats(replica, refused, dropped, out, in);
    }

    /**
     * Closes every port and connection and stops the pillars' event loops, waiting for them (not from one of them).
     * Frames still queued are dropped. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (PillarConnections c : connections) {
            c.close();
        }
    }

    @Override
    public String toString() {
        return "PbftNettyTransport[replica " + replica + ", " + pillars + " pillars" + (closed ? ", closed" : "") + "]";
    }
}
