package io.psmr.ordering.pbft;

/** Why a pillar refused an input; each is counted in {@link PbftPillar#refusals()}. */
public enum Refusal {
    /** The envelope's MAC did not verify. */
    BAD_MAC,
    /** The envelope was for another replica or pillar, or from an unknown replica. */
    MISROUTED,
    /** The replica named inside the message is not the envelope's sender. */
    FORGED_SENDER,
    /** A client request's MAC for this replica did not verify. */
    BAD_REQUEST_AUTH,
    /** A request payload over {@code maxRequestBytes}. */
    REQUEST_TOO_LARGE,
    /** A request already ordered (its number is at or below the client's last ordered one). */
    DUPLICATE_REQUEST,
    /** The pending-request table is full. */
    OVERLOADED,
    /** A normal-case message of another view (or while changing views). */
    WRONG_VIEW,
    /** A sequence number of another pillar. */
    WRONG_PILLAR,
    /** A pre-prepare from a replica that does not lead that instance in that view. */
    WRONG_LEADER,
    /** A sequence number outside the watermarks {@code (h, h + L]}. */
    OUTSIDE_WATERMARKS,
    /** A digest that does not match its request. */
    DIGEST_MISMATCH,
    /** A second, different pre-prepare for the same view and sequence number. */
    CONFLICTING_PRE_PREPARE,
    /** A replica voted twice differently (prepare, commit or checkpoint). */
    EQUIVOCATION,
    /** A checkpoint number that is not a multiple of K, or a checkpoint proof that is not 2f+1 matching. */
    BAD_CHECKPOINT,
    /** A checkpoint digest that differs from the digest 2f+1 replicas agreed on. */
    CHECKPOINT_MISMATCH,
    /** A CHECKPOINT or VIEW-CHANGE whose sender's signature does not verify. */
    BAD_SIGNATURE,
    /** A VIEW-CHANGE that is malformed (P/Q entries outside its window or pillar, views not below the new view, ...) or whose stable proof is not 2f+1 signed CHECKPOINTs. */
    BAD_VIEW_CHANGE,
    /**
     * A NEW-VIEW from the wrong primary, without 2f+1 distinct validly signed VIEW-CHANGEs, or with a
     * re-proposal that Castro's rules A/B do not allow against its VIEW-CHANGEs.
     */
    BAD_NEW_VIEW,
    /** A view-change message for a view already passed. */
    STALE_VIEW
}
