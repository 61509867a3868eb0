package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Request;
import java.util.List;

/**
 * What a pillar produced since it was last drained, like etcd raft's {@code Ready}: envelopes to
 * send, instances committed, checkpoints that became stable.
 *
 * @param messages  envelopes to send, each to its {@link PbftEnvelope#to()}
 * @param committed instances committed here, in the order they committed (not necessarily by
 *                  sequence number: the execution stage restores the total order); each at most once
 * @param stable    checkpoints that became stable at this pillar (announce them to every pillar of
 *                  the replica through {@link PbftPillar#stableCheckpoint}); one whose number is above
 *                  what the replica executed needs state transfer
 */
public record PbftReady(List<PbftEnvelope> messages, List<Committed> committed, List<StableCheckpoint> stable) {

    /** Nothing. */
    public static final PbftReady EMPTY = new PbftReady(List.of(), List.of(), List.of());

    /** Copies the lists. */
    public PbftReady {
        messages = List.copyOf(messages);
        committed = List.copyOf(committed);
        stable = List.copyOf(stable);
    }

    /** Whether there is nothing in it. */
    public boolean isEmpty() {
        return messages.isEmpty() && committed.isEmpty() && stable.isEmpty();
    }

    /**
     * An instance committed at this replica (committed-local).
     *
     * @param seq     its global sequence number
     * @param view    the view it committed in
     * @param request the request, or null for an EMPTY instance
     * @param digest  the request's digest, or the EMPTY digest
     */
    public record Committed(long seq, long view, Request request, byte[] digest) {
        /** Whether it is an EMPTY instance. */
        public boolean isEmpty() {
            return request == null;
        }
    }

    /**
     * A stable checkpoint: 2f+1 replicas reported the same state digest at {@code seq}.
     *
     * @param seq         the checkpoint number (a multiple of K)
     * @param stateDigest the agreed state digest
     * @param proof       the 2f+1 matching CHECKPOINT messages
     */
    public record StableCheckpoint(long seq, byte[] stateDigest, List<Checkpoint> proof) {
        /** Copies the list. */
        public StableCheckpoint {
            proof = List.copyOf(proof);
        }
    }
}
