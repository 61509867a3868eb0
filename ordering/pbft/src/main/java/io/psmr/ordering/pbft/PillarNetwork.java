package io.psmr.ordering.pbft;

import io.psmr.ordering.agent.BoundedQueue;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The network as a replica's {@link PillarAgent}s see it: each pillar's two bounded inboxes (frames from other
 * replicas, encoded client requests) and a way to send an envelope. {@link LoopbackNetwork} implements it for a whole
 * cluster in one JVM; {@code io.psmr.ordering.pbft.net.PbftNettyTransport} for one replica over TCP. So a
 * {@link PbftReplicaNode} runs unchanged on either.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>{@link #send} never blocks: an envelope that cannot be queued is dropped and counted (PBFT retransmits). It is
 *       called only by the agent of the envelope's {@link PbftEnvelope#pillar() pillar}, so an implementation may
 *       give each pillar its own, single-writer connections (COP §4.2.3).</li>
 *   <li>Each inbox has exactly one consumer, the agent of its pillar; implementations fill them from any thread.</li>
 * </ul>
 */
public interface PillarNetwork {

    /**
     * Sends {@code envelope} to replica {@link PbftEnvelope#to()}, pillar {@link PbftEnvelope#pillar()}. Called on
     * the sending pillar's agent thread; never blocks.
     *
     * @return false if it was dropped (a full queue or inbox, an unknown address, no connection)
     */
    boolean send(PbftEnvelope envelope);

    /** The inbox of frames ({@link EnvelopeCodec}) for {@code pillar} of {@code replica}; its agent consumes it. */
    BoundedQueue<byte[]> frames(int replica, int pillar);

    /** The inbox of encoded client requests for {@code pillar} of {@code replica}; its agent consumes it. */
    BoundedQueue<byte[]> requests(int replica, int pillar);

    /**
     * {@code pillar} of {@code replica} refused a request submitted to it through {@link #requests}, for
     * {@code reason}: tells whoever submitted it, so that its proposer fails it at
     * once. Called on that pillar's agent thread; never blocks.
     */
    void refused(int replica, int pillar, PbftMessage.Request request, Refusal reason);

    /**
     * The event loop that serves {@code pillar}'s connections, if this network has one for it: the replica then runs
     * the pillar's agent on that loop ({@link io.psmr.ordering.agent.LoopAgentRunner}), so that {@link #send} and the
     * pillar's inboxes are used on the thread that writes and reads its sockets. The loop must run one task at a time
     * on one thread. Empty by default: the agent runs on the replica's own threads.
     */
    default Optional<ScheduledExecutorService> eventLoop(int pillar) {
        return Optional.empty();
    }
}
