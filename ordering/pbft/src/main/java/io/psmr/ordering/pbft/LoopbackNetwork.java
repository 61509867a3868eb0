package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.agent.BoundedQueue;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The in-JVM network between the replicas of a {@link LoopbackPbft} cluster: one bounded inbox of frames per
 * (replica, pillar), COP's private connections (§4.2.3), and one bounded inbox of client requests per (replica,
 * pillar). Every message crosses it as bytes: encoded with {@link EnvelopeCodec} (the core's canonical encoding, with
 * the MAC the sender sealed) and decoded by the receiving {@link PillarAgent}, so nothing is shared between replicas
 * but immutable byte arrays.
 *
 * <h2>Overload</h2>
 * Replica-to-replica links are lossy like a network: a frame offered to a full inbox is dropped and counted
 * ({@link #dropped(int)}); PBFT's retransmission recovers it. A sender never waits, so replicas cannot deadlock on
 * each other's inboxes. A request to a full request inbox is refused ({@link #submit} returns false) so the proposer
 * can fail the proposal with an overload; a request its pillar refuses is reported back the same way
 * ({@link #onRefused}), so the proposer fails it at once.
 *
 * <h2>Traffic</h2>
 * Every frame a replica sends to another counts its encoded length towards the sender's {@link #sentBytes(int)},
 * whether or not the receiver's inbox takes it: what the replica would put on the wire (the COP paper's leader
 * outgoing traffic, Fig. 8). Client requests ({@link #submit}) are the clients' traffic, not a replica's, and are
 * not counted. The counters are {@link LongAdder}s, one per sending replica, so that the pillars of a replica,
 * each on its own thread, add to them without contending.
 *
 * <p>Thread safety: all methods from any thread; each inbox has one consumer, its pillar's agent.
 */
public final class LoopbackNetwork implements PillarNetwork {

    private final int replicas;
    private final int pillars;
    private final BoundedQueue<byte[]>[][] frames;
    private final BoundedQueue<byte[]>[][] requests;
    private final AtomicLongArray dropped;
    private final AtomicReferenceArray<RefusedRequests> refusals;
    private final LongAdder[] sentBytes;

    /**
     * @param replicas          n, at least 1
     * @param pillars           Np, at least 1
     * @param frameCapacity     frames buffered per (replica, pillar) inbox, at least 1
     * @param requestCapacity   requests buffered per (replica, pillar) request inbox, at least 1
     */
    @SuppressWarnings("unchecked")
    public LoopbackNetwork(int replicas, int pillars, int frameCapacity, int requestCapacity) {
        if (replicas < 1 || pillars < 1) {
            throw new IllegalArgumentException("need at least 1 replica and 1 pillar, got " + replicas + " and " + pillars);
        }
        this.replicas = replicas;
        this.pillars = pillars;
        this.frames = new BoundedQueue[replicas][pillars];
        this.requests = new BoundedQueue[replicas][pillars];
        for (int r = 0; r < replicas; r++) {
            for (int p = 0; p < pillars; p++) {
                frames[r][p] = new BoundedQueue<>("replica-" + r + "/pillar-" + p + " frames", frameCapacity);
                requests[r][p] = new BoundedQueue<>("replica-" + r + "/pillar-" + p + " requests", requestCapacity);
            }
        }
        this.dropped = new AtomicLongArray(replicas);
        this.refusals = new AtomicReferenceArray<>(replicas);
        this.sentBytes = new LongAdder[replicas];
        for (int r = 0; r < replicas; r++) {
            sentBytes[r] = new LongAdder();
        }
    }

    /** Where refusals of requests submitted to {@code replica} go (its proposer); replaces any earlier listener. */
    public void onRefused(int replica, RefusedRequests listener) {
        refusals.set(replica, listener);
    }

    /** Tells the listener of {@code replica}, if any ({@link #onRefused}). */
    @Override
    public void refused(int replica, int pillar, Request request, Refusal reason) {
        RefusedRequests l = refusals.get(replica);
        if (l != null) {
            l.refused(request, pillar, reason);
        }
    }

    /** The number of replicas. */
    public int replicas() {
        return replicas;
    }

    /** The number of pillars per replica. */
    public int pillars() {
        return pillars;
    }

    /**
     * Sends {@code envelope} to its {@link PbftEnvelope#to() replica} and {@link PbftEnvelope#pillar() pillar}.
     *
     * @return false if it was dropped (the inbox was full, or the address does not exist)
     */
    @Override
    public boolean send(PbftEnvelope envelope) {
        int to = envelope.to();
        int pillar = envelope.pillar();
        if (to < 0 || to >= replicas || pillar < 0 || pillar >= pillars) {
            dropped.incrementAndGet(Math.floorMod(to, replicas));
            return false;
        }
        byte[] frame = EnvelopeCodec.encode(envelope);
        int from = envelope.from();
        if (from >= 0 && from < replicas) {
            sentBytes[from].add(frame.length);
        }
        if (!frames[to][pillar].offer(frame)) {
            dropped.incrementAndGet(to);
            return false;
        }
        return true;
    }

    /**
     * Hands a client request to {@code pillar} of {@code replica}, encoded.
     *
     * @return false if that request inbox is full (nothing was queued)
     */
    public boolean submit(int replica, int pillar, Request request) {
        return requests[replica][pillar].offer(PbftCodec.encode(request));
    }

    /** Replica {@code replica}'s request inboxes and refusals, as its {@link PbftBroadcast} uses them. */
    public RequestIntake intake(int replica) {
        if (replica < 0 || replica >= replicas) {
            throw new IllegalArgumentException("replica " + replica + " is not one of 0.." + (replicas - 1));
        }
        return new RequestIntake() {
            @Override
            public boolean submit(int pillar, Request request) {
                return LoopbackNetwork.this.submit(replica, pillar, request);
            }

            @Override
            public void onRefused(RefusedRequests listener) {
                LoopbackNetwork.this.onRefused(replica, listener);
            }
        };
    }

    /** The inbox of frames for {@code pillar} of {@code replica} (its agent consumes it). */
    @Override
    public BoundedQueue<byte[]> frames(int replica, int pillar) {
        return frames[replica][pillar];
    }

    /** The inbox of encoded requests for {@code pillar} of {@code replica} (its agent consumes it). */
    @Override
    public BoundedQueue<byte[]> requests(int replica, int pillar) {
        return requests[replica][pillar];
    }

    /** Frames to {@code replica} dropped so far because its inbox was full or the address was bad. */
    public long dropped(int replica) {
        return dropped.get(replica);
    }

    /**
     * Bytes of frames {@code replica} has sent so far (encoded envelopes, MACs included; dropped ones too, as a wire
     * would carry them). A sum of {@link LongAdder}s: exact once the senders are quiet, a close lower bound while
     * they send.
     */
    public long sentBytes(int replica) {
        return sentBytes[replica].sum();
    }
}
