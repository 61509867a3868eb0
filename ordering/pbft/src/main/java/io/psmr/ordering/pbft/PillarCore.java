package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftReady.StableCheckpoint;

/**
 * One pillar's PBFT protocol as a {@link PillarAgent} drives it: a pure state machine (no threads, clocks or I/O),
 * the shape of {@link PbftPillar}, which {@link PbftPillarCore} adapts; tests may drive the agents with a simpler
 * core. Its inputs are the calls below; its outputs are collected by {@link #ready()}. Called only by the thread of
 * the agent that owns it.
 */
public interface PillarCore {

    /** This pillar's number, {@code 0..Np-1}; it runs the sequence numbers {@code c} with {@code c mod Np} equal to it. */
    int pillar();

    /** An envelope from another replica's same pillar (the core verifies its MAC and refuses what is bad). */
    void step(PbftEnvelope envelope);

    /** One tick of the replica's clock (the agent turns elapsed time into ticks; the core has no clock). */
    void tick();

    /**
     * A client request routed to this pillar (the core verifies the client's MAC and forwards it to the other
     * replicas).
     *
     * @return false if the core refused it (bad MAC, too large, already ordered, pending table full)
     */
    boolean propose(Request request);

    /**
     * Why the last {@link #propose} returned false, or null if this core does not say (the default). Read right
     * after that call, on the same thread.
     */
    default Refusal lastRefusal() {
        return null;
    }

    /** The execution stage's state digest after checkpoint {@code seq}, for the pillar in charge of it. */
    void checkpointDigest(long seq, byte[] digest);

    /** A checkpoint became stable at another pillar of this replica (COP's shared checkpoints, §4.2.2). */
    void stableCheckpoint(StableCheckpoint checkpoint);

    /**
     * A transferred state says client {@code client}'s requests up to {@code number} are executed: forget and refuse
     * them ({@link PbftPillar#clientExecuted}). Cores without a request table ignore it.
     */
    default void clientExecuted(long client, long number) {
    }

    /** The execution stage waits on sequence number {@code seq} of this pillar: fill it (EMPTY if nothing is pending). */
    void needEmpty(long seq);

    /** Everything produced since the last call. */
    PbftReady ready();

    /** This pillar's view, h and refusal counters now, for a status page (the default: not known). */
    default PillarSnapshot snapshot(long malformed) {
        return new PillarSnapshot(pillar(), -1, -1, java.util.Map.of(), malformed);
    }
}
