package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.protocol.ProtocolCore;
import java.util.Map;
import java.util.Optional;

/**
 * One pillar's PBFT {@link ProtocolCore}, as a {@link PillarAgent} drives it: it exchanges {@link PbftEnvelope}s with
 * the same pillar of the other replicas, persists nothing ({@link Void}: a replica recovers by state transfer), and
 * hands the execution stage {@link PillarOutput}s. To the core contract it adds the inputs of a COP pillar: client
 * requests and the execution stage's commands. {@link PbftPillar} is the real one; tests may drive the agents with a
 * simpler core. Called only by the thread of the agent that owns it.
 */
public interface PbftCore extends ProtocolCore<PbftEnvelope, Void, PillarOutput> {

    /** This pillar's number, {@code 0..Np-1}; it runs the sequence numbers {@code c} with {@code c mod Np} equal to it. */
    int pillar();

    /**
     * A client request routed to this pillar (the core verifies the client's MAC and forwards it to the other
     * replicas).
     *
     * @return empty if the core took it, else why it refused it (bad MAC, too large, already ordered, pending table
     *         full); a refused request is neither remembered nor forwarded
     */
    Optional<Refusal> propose(Request request);

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

    /**
     * This pillar restarted without its log (amnesia): it may have pre-prepared instances up to {@code upTo}
     * before and forgotten them, so it leads none of them ({@link PbftPillar#UNTIL_FIRST_STABLE_CHECKPOINT}:
     * up to the first stable checkpoint it learns plus the watermark window). The others route around it as
     * around a slow leader. The default does nothing.
     */
    default void recovering(long upTo) {
    }

    /**
     * As {@link #recovering(long)}, where the forgotten log sent no PRE-PREPARE or NEW-VIEW above view
     * {@code throughView}: the abstention ends at the first higher view ({@link PbftPillar#recovering(long, long)}).
     * The default does nothing.
     */
    default void recovering(long upTo, long throughView) {
    }

    /**
     * The highest view in which this pillar, or a forgotten log it recovered from, may have sent a PRE-PREPARE or a
     * NEW-VIEW; read after its agent stopped, by the incarnation that replaces it. The default, {@link Long#MAX_VALUE},
     * says it is not known.
     */
    default long highestViewEntered() {
        return Long.MAX_VALUE;
    }

    /**
     * The highest view each replica was seen in (index = replica; -1: none), read after its agent stopped, by the
     * incarnation that replaces it. The default: none seen.
     */
    default long[] viewsSeen() {
        return new long[0];
    }

    /**
     * The views seen by the incarnation this one replaces ({@link #viewsSeen}), to join the others' view at once
     * ({@link PbftPillar#resumeViewsSeen}). Before the first tick. The default ignores them.
     */
    default void resumeViewsSeen(long[] seen) {
    }

    /** This pillar's view, h and refusal counters now, for a status page (the default: not known). */
    default PillarSnapshot snapshot(long malformed) {
        return new PillarSnapshot(pillar(), -1, -1, Map.of(), malformed);
    }
}
