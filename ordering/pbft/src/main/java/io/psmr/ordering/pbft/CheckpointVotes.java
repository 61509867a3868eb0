package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * One pillar's CHECKPOINT votes at one replica: the signed votes above the last stable checkpoint h,
 * this replica's own votes, and h itself with its proof (2f+1 matching signed CHECKPOINTs). It decides
 * when a checkpoint becomes stable; the pillar then moves its window ({@link #install}).
 *
 * <p>Pure: no clock, thread or socket; the same votes give the same decisions. Refused votes are
 * reported to the sink given at construction. Not thread-safe: the pillar's thread calls every method.
 */
final class CheckpointVotes {

    private final PbftConfig config;
    private final Authenticator auth;
    private final Consumer<Refusal> refusals;

    private long stableSeq; // h
    private byte[] stableDigest = new byte[0];
    private List<Checkpoint> stableProof = List.of();
    private final TreeMap<Long, Map<Integer, Checkpoint>> votes = new TreeMap<>();
    private final TreeMap<Long, Checkpoint> own = new TreeMap<>();

    /**
     * No votes, h = 0.
     *
     * @param config   the cluster's configuration
     * @param auth     verifies the votes' signatures and signs this replica's own
     * @param refusals counts each refused vote
     */
    CheckpointVotes(PbftConfig config, Authenticator auth, Consumer<Refusal> refusals) {
        this.config = config;
        this.auth = auth;
        this.refusals = refusals;
    }

    /** The last stable checkpoint h (0 before the first). */
    long stableSeq() {
        return stableSeq;
    }

    /** The 2f+1 signed CHECKPOINTs that prove h (none at 0). */
    List<Checkpoint> stableProof() {
        return stableProof;
    }

    /** This replica's own votes above h, lowest first (it retransmits them). */
    Collection<Checkpoint> ownVotes() {
        return Collections.unmodifiableCollection(own.values());
    }

    /**
     * This replica's own vote for checkpoint {@code seq}, signed as {@code self}, or null if {@code seq}
     * is at or below h or this replica voted for it already. The caller multicasts it, then
     * {@link #record records} it.
     */
    Checkpoint vote(long seq, byte[] digest, int self) {
        if (seq <= stableSeq || own.containsKey(seq)) {
            return null;
        }
        Checkpoint vote = Checkpoint.signed(seq, digest, self, auth);
        own.put(seq, vote);
        return vote;
    }

    /**
     * A CHECKPOINT from replica {@code from}: checked (sender, checkpoint number, signature; nothing
     * below h is worth a signature check) and recorded.
     *
     * @return the checkpoint it made stable, or null
     */
    StableCheckpoint onCheckpoint(Checkpoint c, int from) {
        if (c.replica() != from) {
            refusals.accept(Refusal.FORGED_SENDER);
            return null;
        }
        if (!config.isCheckpoint(c.seq())) {
            refusals.accept(Refusal.BAD_CHECKPOINT);
            return null;
        }
        if (c.seq() < stableSeq || (c.seq() == stableSeq && Arrays.equals(c.stateDigest(), stableDigest))) {
            return null; // nothing to learn; not worth a signature check
        }
        Map<Integer, Checkpoint> atSeq = votes.get(c.seq());
        if (atSeq != null && c.equals(atSeq.get(from))) {
            return null; // a retransmission of a vote already verified
        }
        if (!c.signatureValid(auth)) {
            refusals.accept(Refusal.BAD_SIGNATURE);
            return null;
        }
        if (c.seq() == stableSeq) {
            refusals.accept(Refusal.CHECKPOINT_MISMATCH);
            return null;
        }
        return record(c);
    }

    /**
     * Records a signed (verified, or this replica's own) vote; 2f+1 matching make it stable. Once
     * stable, each vote for another digest at that number is refused as {@link Refusal#CHECKPOINT_MISMATCH}.
     *
     * @return the checkpoint it made stable (its proof sorted by replica), or null
     */
    StableCheckpoint record(Checkpoint vote) {
        long seq = vote.seq();
        byte[] digest = vote.stateDigest();
        Map<Integer, Checkpoint> atSeq = votes.computeIfAbsent(seq, s -> new HashMap<>());
        Checkpoint earlier = atSeq.putIfAbsent(vote.replica(), vote);
        if (earlier != null) {
            if (!Arrays.equals(earlier.stateDigest(), digest)) {
                refusals.accept(Refusal.EQUIVOCATION);
            }
            return null;
        }
        bound(vote.replica());
        List<Checkpoint> proof = new ArrayList<>();
        for (Checkpoint v : atSeq.values()) {
            if (Arrays.equals(v.stateDigest(), digest)) {
                proof.add(v);
            }
        }
        if (proof.size() < config.quorum()) {
            return null;
        }
        proof.sort((x, y) -> Integer.compare(x.replica(), y.replica()));
        for (Checkpoint other : atSeq.values()) {
            if (!Arrays.equals(other.stateDigest(), digest)) {
                refusals.accept(Refusal.CHECKPOINT_MISMATCH);
            }
        }
        return new StableCheckpoint(seq, digest, proof);
    }

    /**
     * Keeps at most {@code L / K + 1} votes per replica above h (its highest), so a Byzantine replica
     * cannot fill memory with far-future checkpoints, while a lagging replica still learns of
     * checkpoints far ahead.
     */
    private void bound(int replica) {
        long cap = config.watermarkWindow() / config.checkpointInterval() + 1;
        int count = 0;
        for (Map<Integer, Checkpoint> atSeq : votes.values()) {
            if (atSeq.containsKey(replica)) {
                count++;
            }
        }
        Iterator<Map.Entry<Long, Map<Integer, Checkpoint>>> it = votes.entrySet().iterator();
        while (count > cap && it.hasNext()) {
            Map<Integer, Checkpoint> atSeq = it.next().getValue();
            if (atSeq.remove(replica) != null) {
                count--;
            }
            if (atSeq.isEmpty()) {
                it.remove();
            }
        }
    }

    /** Whether {@code proof} proves checkpoint (seq, digest) under this pillar's configuration and keys. */
    boolean validProof(long seq, byte[] digest, List<Checkpoint> proof) {
        return validProof(config, auth, seq, digest, proof);
    }

    /**
     * A stable-checkpoint proof: 2f+1 CHECKPOINTs of distinct replicas for (seq, digest), each validly
     * signed. The structure is checked before any signature (the cheap part first).
     */
    static boolean validProof(PbftConfig config, Authenticator auth, long seq, byte[] digest, List<Checkpoint> proof) {
        if (!config.isCheckpoint(seq)) {
            return false;
        }
        Set<Integer> replicas = new HashSet<>();
        for (Checkpoint c : proof) {
            if (c.seq() != seq || !Arrays.equals(c.stateDigest(), digest) || c.replica() < 0
                    || c.replica() >= config.replicaCount() || !replicas.add(c.replica())) {
                return false;
            }
        }
        if (replicas.size() < config.quorum()) {
            return false;
        }
        for (Checkpoint c : proof) {
            if (!c.signatureValid(auth)) {
                return false;
            }
        }
        return true;
    }

    /** Checkpoint {@code seq} is stable: it becomes h, and every vote at or below it is dropped. */
    void install(long seq, byte[] digest, List<Checkpoint> proof) {
        stableSeq = seq;
        stableDigest = digest.clone();
        stableProof = List.copyOf(proof);
        votes.headMap(seq, true).clear();
        own.headMap(seq, true).clear();
    }
}
