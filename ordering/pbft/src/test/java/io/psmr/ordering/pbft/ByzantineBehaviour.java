package io.psmr.ordering.pbft;

import java.util.List;

/**
 * What the one Byzantine replica of a simulation does. It runs a real {@link PbftPillar} per pillar
 * (so it knows views, watermarks and requests as a correct replica would), and
 * {@link ByzantineNetwork} rewrites, drops, replays or adds to its outgoing envelopes. It knows its
 * own pairwise MAC keys only: it never computes a MAC for another sender or a client (the simulation's
 * {@link ChecksumAuthenticator} MACs are keyless, so this is a rule the adversary code keeps), and it
 * signs with {@link ChecksumAuthenticator#signingOnlyFor} its own replica (enforced: it cannot sign as another).
 *
 * <p>{@link #refusedAs} names the refusals that show the attack reached correct replicas and was
 * refused; the campaign asserts that, summed over its seeds, at least one of them was counted. An attack
 * that nobody can refuse has none: {@link #SLOW_LEADER}'s every message is correct, so the campaign
 * asserts instead, per run, that it held PRE-PREPAREs of instances it led.
 */
enum ByzantineBehaviour {
    /** Sends nothing at all (as a leader: correct replicas must change views away from it). */
    SILENT(List.of()),
    /**
     * As a leader, sends a different PRE-PREPARE for the same (view, seq) to each correct replica: the
     * request, another client request (or EMPTY), and nothing; so no value prepares and the correct
     * replicas must change views away from it. With f &gt; 1, at every other instance of a pillar (by view + seq / Np) it sends another
     * value (or nothing) to one correct replica only and the request to every other replica: the request
     * prepares and commits, and that one correct replica, holding another value, must learn the decision
     * from the COMMITs inside the view.
     */
    EQUIVOCATING_LEADER(List.of(Refusal.CONFLICTING_PRE_PREPARE, Refusal.WRONG_VIEW)),
    /**
     * As a leader, with a colluding network: pre-prepares each instance at two correct replicas only
     * (X, Y), has the network hold back X's PREPARE and COMMIT to Y past the view change, sends its own
     * COMMIT to X only, and hides its certificates in its VIEW-CHANGEs. With 2f+1 COMMITs X cannot commit
     * alone with it; with 2f it can, and a NEW-VIEW without X's certificate decides otherwise — this is
     * the behaviour that catches the commit-quorum mutation.
     */
    SPLITTING_LEADER(List.of(Refusal.WRONG_VIEW)),
    /** Corrupted, missing or impersonated envelope MACs, and client requests with forged client MACs. */
    FORGED_MACS(List.of(Refusal.BAD_MAC, Refusal.BAD_REQUEST_AUTH)),
    /** PRE-PREPARE digests that do not match the request, PREPARE/COMMIT digests of nothing agreed. */
    WRONG_DIGESTS(List.of(Refusal.DIGEST_MISMATCH, Refusal.EQUIVOCATION, Refusal.BAD_REQUEST_AUTH)),
    /** Replays its own old envelopes and re-envelopes other replicas' messages as its own. */
    REPLAYS(List.of(Refusal.FORGED_SENDER, Refusal.WRONG_LEADER)),
    /**
     * VIEW-CHANGEs with lies the core can detect (see {@link ByzantineNetwork.Lie}: forged stable proofs
     * and forged signatures among them), also unprompted.
     */
    LYING_VIEW_CHANGE(List.of(Refusal.BAD_VIEW_CHANGE, Refusal.BAD_SIGNATURE)),
    /**
     * As a leader sends no PRE-PREPARE (forcing view changes), and lies about its own state, which
     * nobody can detect: every VIEW-CHANGE claims its first instances
     * prepared at view newView-1 with values it never prepared (requests it saw, or EMPTY). Rule A
     * must never adopt them (they lack f+1 backing Q entries). Nothing to refuse.
     */
    LYING_PREPARED(List.of()),
    /**
     * As a leader sends no PRE-PREPARE (forcing view changes); as a primary: NEW-VIEWs of VIEW-CHANGEs it made up (others' signatures forged), unprompted for the
     * next view it leads; and its real NEW-VIEWs rewritten with choices rules A/B do not allow.
     */
    FORGED_NEW_VIEW(List.of(Refusal.BAD_NEW_VIEW)),
    /** CHECKPOINTs with a wrong state digest, far-future ones, ones at non-checkpoint numbers, made-up signatures. */
    WRONG_CHECKPOINTS(List.of(Refusal.CHECKPOINT_MISMATCH, Refusal.BAD_CHECKPOINT, Refusal.BAD_SIGNATURE)),
    /** EMPTY PRE-PREPAREs for instances it does not lead or of another pillar. */
    EMPTY_NOT_OWNED(List.of(Refusal.WRONG_LEADER, Refusal.WRONG_PILLAR)),
    /**
     * Runs the protocol correctly but, as Aardvark's slow primary, holds each PRE-PREPARE it sends for
     * just under the request timeout ({@link ByzantineNetwork#slowLeaderDelayTicks}) before it goes on the
     * wire. Nothing to refuse.
     */
    SLOW_LEADER(List.of());

    private final List<Refusal> refusedAs;

    ByzantineBehaviour(List<Refusal> refusedAs) {
        this.refusedAs = refusedAs;
    }

    /** Refusals at correct replicas that show the attack arrived (empty: silence is not refused). */
    List<Refusal> refusedAs() {
        return refusedAs;
    }

    /** Whether the behaviour attacks as a leader, so the Byzantine replica is replica 0 (the primary of view 0). */
    boolean leadsFirst() {
        return this == SILENT || this == EQUIVOCATING_LEADER || this == SPLITTING_LEADER || this == WRONG_DIGESTS || this == FORGED_MACS
                || this == LYING_PREPARED || this == FORGED_NEW_VIEW || this == SLOW_LEADER;
    }
}
