package io.psmr.ordering.pbft;

import java.util.Arrays;

/**
 * What one pillar of an incarnation that a state transfer replaces hands to the pillar that succeeds it, read once
 * its agent has stopped ({@link PbftReplicaNode#handover}).
 *
 * @param highestViewEntered {@link PbftCore#highestViewEntered}: the successor abstains from leading the forgotten
 *                           instances in views up to it ({@link PbftPillar#recovering(long, long)})
 * @param viewsSeen          {@link PbftCore#viewsSeen}, index = replica, -1 for none: the successor joins the view
 *                           the others are in at once ({@link PbftPillar#resumeViewsSeen})
 */
public record PillarHandover(long highestViewEntered, long[] viewsSeen) {

    /** Copies {@code viewsSeen}: the record is immutable. */
    public PillarHandover {
        viewsSeen = viewsSeen.clone();
    }

    /** A copy of the views seen. */
    @Override
    public long[] viewsSeen() {
        return viewsSeen.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PillarHandover h && h.highestViewEntered == highestViewEntered
                && Arrays.equals(h.viewsSeen, viewsSeen);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(highestViewEntered) * 31 + Arrays.hashCode(viewsSeen);
    }

    @Override
    public String toString() {
        return "view " + highestViewEntered + ", others seen in " + Arrays.toString(viewsSeen);
    }
}
