package io.psmr.ordering.ringpaxos;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a {@link Learner} needs to resume delivering exactly where a replica's checkpoint left off: the Paxos
 * instance through which it had delivered, and its duplicate filter ({@link ProposalDeduplicator}). A learner
 * built from it ({@link Learner#Learner(RingPaxosConfig, int, LearnerCheckpoint, Learner.Reporting)}) delivers
 * from {@code deliveredThrough + 1} and makes the same skip-or-deliver choice for every later decision as the
 * learner the state was taken from, so it delivers exactly what that learner would have delivered next.
 *
 * <p>The duplicate filter must travel with the instance: a proposal decided once before the checkpoint and again
 * after it (its proposer retried) would otherwise be delivered twice by a resumed learner and once by the others.
 *
 * <p><b>Encoding</b> ({@link #toBytes()}, {@link #fromBytes(byte[])}), big-endian, deterministic (equal states give
 * equal bytes, since proposers are kept sorted):
 * <pre>
 * version:u8 (1)  deliveredThrough:i64  count:i32  count × (proposer:i32 highestSeq:i64 mask:i64)
 * </pre>
 *
 * @param deliveredThrough the Paxos instance through which the learner had delivered (its
 *                         {@link Learner#nextInstance()} − 1), at least 0
 * @param proposers        per proposer it delivered from: the highest sequence number delivered and the mask of
 *                         the ones delivered just below it; sorted by proposer id, no proposer twice
 */
public record LearnerCheckpoint(long deliveredThrough, List<ProposerState> proposers) {

    /** The state of a learner that has delivered nothing: it resumes at instance 1. */
    public static final LearnerCheckpoint INITIAL = new LearnerCheckpoint(0, List.of());

    /** The encoding's version byte. */
    public static final byte VERSION = 1;

    private static final int HEADER_BYTES = 1 + 8 + 4;
    private static final int PROPOSER_BYTES = 4 + 8 + 8;

    /**
     * One proposer's entry of the duplicate filter.
     *
     * @param proposer   the proposer's id, non-negative
     * @param highestSeq the highest sequence number delivered from it, at least 1
     * @param mask       bit k set: {@code highestSeq − k} was delivered (bit 0 is always set)
     */
    public record ProposerState(int proposer, long highestSeq, long mask) {

        /** Validates. */
        public ProposerState {
            if (proposer < 0) {
                throw new IllegalArgumentException("proposer id must be non-negative: " + proposer);
            }
            if (highestSeq < 1) {
                throw new IllegalArgumentException("proposer " + proposer + ": highest sequence number must be at least 1: "
                        + highestSeq);
            }
            if ((mask & 1) == 0) {
                throw new IllegalArgumentException("proposer " + proposer + ": mask lacks bit 0 (the highest sequence number "
                        + highestSeq + " was delivered)");
            }
        }
    }

    /** Validates and copies; proposers must be in increasing id order, each once. */
    public LearnerCheckpoint {
        if (deliveredThrough < 0) {
            throw new IllegalArgumentException("deliveredThrough must be non-negative: " + deliveredThrough);
        }
        proposers = List.copyOf(proposers);
        for (int i = 1; i < proposers.size(); i++) {
            if (proposers.get(i).proposer() <= proposers.get(i - 1).proposer()) {
                throw new IllegalArgumentException("proposers must be in increasing id order, each once: "
                        + proposers.get(i - 1).proposer() + " then " + proposers.get(i).proposer());
            }
        }
    }

    /** A checkpoint from proposer entries in any order (sorted here). */
    public static LearnerCheckpoint of(long deliveredThrough, List<ProposerState> proposers) {
        List<ProposerState> sorted = new ArrayList<>(proposers);
        sorted.sort(Comparator.comparingInt(ProposerState::proposer));
        return new LearnerCheckpoint(deliveredThrough, sorted);
    }

    /** The Paxos instance a learner resumed from this state delivers first. */
    public long nextInstance() {
        return deliveredThrough + 1;
    }

    /** The encoding described in the class comment. */
    public byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + PROPOSER_BYTES * proposers.size());
        b.put(VERSION).putLong(deliveredThrough).putInt(proposers.size());
        for (ProposerState p : proposers) {
            b.putInt(p.proposer()).putLong(p.highestSeq()).putLong(p.mask());
        }
        return b.array();
    }

    /**
     * Decodes {@link #toBytes()}.
     *
     * @throws IllegalArgumentException naming the problem: null or truncated bytes, an unknown version, a negative
     *                                  instance or count, a count that does not match the length, proposers out of
     *                                  order or repeated, an entry without its highest sequence number
     */
    public static LearnerCheckpoint fromBytes(byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException("learner checkpoint: no bytes");
        }
        if (bytes.length < HEADER_BYTES) {
            throw new IllegalArgumentException("learner checkpoint: truncated: " + bytes.length + " bytes, the header alone is "
                    + HEADER_BYTES);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte version = b.get();
        if (version != VERSION) {
            throw new IllegalArgumentException("learner checkpoint: unknown version " + version + " (expected " + VERSION + ")");
        }
        long through = b.getLong();
        int count = b.getInt();
        if (count < 0) {
            throw new IllegalArgumentException("learner checkpoint: negative proposer count " + count);
        }
        long expected = HEADER_BYTES + (long) PROPOSER_BYTES * count;
        if (bytes.length != expected) {
            throw new IllegalArgumentException("learner checkpoint: " + count + " proposers need " + expected + " bytes, got "
                    + bytes.length + (bytes.length < expected ? " (truncated)" : " (trailing bytes)"));
        }
        List<ProposerState> proposers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int proposer = b.getInt();
            long highest = b.getLong();
            long mask = b.getLong();
            try {
                proposers.add(new ProposerState(proposer, highest, mask));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("learner checkpoint: entry " + i + ": " + e.getMessage(), e);
            }
        }
        try {
            return new LearnerCheckpoint(through, proposers);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("learner checkpoint: " + e.getMessage(), e);
        }
    }
}
