package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Remembers, per proposer, which proposals a learner has delivered, in bounded space, so a
 * proposal decided twice (its proposer retried after a lost acknowledgement) is delivered once.
 *
 * <p>It relies on the proposer's window (see {@link Proposer}): a proposer sends sequence number
 * {@code s} only once {@code s − w} is acknowledged, hence decided, where {@code w} is the window.
 * A fresh value is only ever placed above every instance a coordinator's Phase 1 quorum voted in,
 * so {@code s} is decided after the first decision of {@code s − w}. Therefore, once a learner has
 * delivered {@code h}, every {@code s ≤ h − w} was already delivered; only the last {@code w}
 * sequence numbers below the highest need a bit each. The state is one long and one 64-bit mask
 * per proposer, and proposers are fixed by the configuration.
 *
 * <p><b>Restarted proposers.</b> The argument above holds within one incarnation of a proposer. A
 * proposer process that restarts with the same id starts above every number it used before (its
 * {@code firstSeq}, see {@link Proposer}); were it to reuse a number at or below
 * {@code highest − w}, every learner would drop that new value as a duplicate although its proposer
 * sees it decided. A dead incarnation's proposals that are decided late are delivered once if they
 * fall within the window below the highest number delivered, and dropped otherwise; either way at
 * most once, and identically at every learner, since the verdict depends only on the decided
 * sequence. They were never acknowledged, so dropping them loses nothing anyone was promised.
 */
final class ProposalDeduplicator {

    private static final class Window {
        long highest;
        long seen; // bit k: highest − k was delivered
    }

    private final int window;
    // Sorted by proposer, so a snapshot lists proposers in one order whatever the delivery history.
    private final Map<Integer, Window> byProposer = new TreeMap<>();

    ProposalDeduplicator(int window) {
        this.window = window;
    }

    /** A deduplicator in the state {@code states} describe (as {@link #snapshot()} gave them). */
    ProposalDeduplicator(int window, List<LearnerCheckpoint.ProposerState> states) {
        this(window);
        for (LearnerCheckpoint.ProposerState s : states) {
            Window w = new Window();
            w.highest = s.highestSeq();
            w.seen = s.mask();
            byProposer.put(s.proposer(), w);
        }
    }

    /** The state, one entry per proposer delivered from, in increasing proposer order. */
    List<LearnerCheckpoint.ProposerState> snapshot() {
        List<LearnerCheckpoint.ProposerState> out = new ArrayList<>(byProposer.size());
        for (Map.Entry<Integer, Window> e : byProposer.entrySet()) {
            out.add(new LearnerCheckpoint.ProposerState(e.getKey(), e.getValue().highest, e.getValue().seen));
        }
        return out;
    }

    /** Records the proposal and returns whether it is delivered for the first time. */
    boolean firstDelivery(ProposalId id) {
        Window w = byProposer.computeIfAbsent(id.proposer(), p -> new Window());
        long s = id.seq();
        if (s > w.highest) {
            long shift = s - w.highest;
            w.seen = shift >= 64 ? 0 : w.seen << shift;
            w.seen |= 1;
            w.highest = s;
            return true;
        }
        long k = w.highest - s;
        if (k >= window) {
            return false;
        }
        long bit = 1L << k;
        if ((w.seen & bit) != 0) {
            return false;
        }
        w.seen |= bit;
        return true;
    }
}
