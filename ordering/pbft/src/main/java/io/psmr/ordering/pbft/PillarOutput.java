package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Request;
import java.util.List;

/**
 * What a pillar hands its host in {@link io.psmr.ordering.protocol.Ready#outputs()}: instances committed and
 * checkpoints that became stable, for the execution stage.
 */
public sealed interface PillarOutput permits PillarOutput.Committed, PillarOutput.StableCheckpoint {

    /**
     * An instance committed at this replica (committed-local). Instances commit in the order they committed, not
     * necessarily by sequence number (the execution stage restores the total order); each at most once.
     *
     * @param seq     its global sequence number
     * @param view    the view it committed in
     * @param request the request, or null for an EMPTY instance
     * @param digest  the request's digest, or the EMPTY digest
     */
    record Committed(long seq, long view, Request request, byte[] digest) implements PillarOutput {
        /** Whether it is an EMPTY instance. */
        public boolean isEmpty() {
            return request == null;
        }
    }

    /**
     * A stable checkpoint: 2f+1 replicas reported the same state digest at {@code seq}. Announce it to every pillar
     * of the replica ({@link PbftPillar#stableCheckpoint}); one whose number is above what the replica executed needs
     * state transfer.
     *
     * @param seq         the checkpoint number (a multiple of K)
     * @param stateDigest the agreed state digest
     * @param proof       the 2f+1 matching CHECKPOINT messages
     */
    record StableCheckpoint(long seq, byte[] stateDigest, List<Checkpoint> proof) implements PillarOutput {
        /** Copies the list. */
        public StableCheckpoint {
            proof = List.copyOf(proof);
        }
    }
}
