package io.psmr.ordering.pbft.byzantine;

import io.psmr.ordering.pbft.Refusal;
import java.util.List;

/**
 * One attack of a Byzantine replica on the envelopes it sends, as {@link Adversary} carries it out. The replica runs the
 * real protocol (so it knows views, watermarks and requests as a correct replica would); only what the others hear from
 * it lies. It knows its own keys only: it MACs and signs as itself, and cannot MAC or sign as another replica or a client.
 *
 * <p>Two drivers use the same behaviours: {@link ByzantinePillarNetwork}, for a replica process (each
 * {@link ByzantineMode} but {@link ByzantineMode#WRONG_REPLIES} is one behaviour), and the simulated Byzantine campaign
 * of the core's tests. {@link #SPLITTING_LEADER}, {@link #LYING_PREPARED} and {@link #FORGED_NEW_VIEW} have no process
 * mode; {@link #SPLITTING_LEADER} needs a network that colludes with it, which only a simulation has.
 *
 * <p>{@link #refusedAs} names the refusals that show the attack reached correct replicas and was refused. An attack that
 * nobody can refuse has none: {@link #SLOW_LEADER}'s every message is correct.
 */
public enum ByzantineBehaviour {
    /** Sends nothing at all (as a leader: correct replicas must change views away from it). */
    SILENT(List.of()),
    /**
     * As a leader, sends a different PRE-PREPARE for the same (view, seq) to each other replica: the request, another
     * client request (or EMPTY), and nothing; so no value prepares and the correct replicas must change views away from
     * it. With f &gt; 1, at every other instance of a pillar (by view + seq / Np) it sends another value (or nothing) to
     * one correct replica only and the request to every other replica: the request prepares and commits, and that one
     * correct replica, holding another value, must learn the decision from the COMMITs inside the view.
     */
    EQUIVOCATING_LEADER(List.of(Refusal.CONFLICTING_PRE_PREPARE, Refusal.WRONG_VIEW)),
    /**
     * As a leader, with a colluding network: pre-prepares each instance at two correct replicas only (X and Y, see
     * {@link Adversary#splitRole}), sends its own COMMIT to X only, and hides its certificates in its VIEW-CHANGEs; the
     * network holds back X's PREPARE and COMMIT to Y past the view change. With 2f+1 COMMITs X cannot commit alone with
     * it; with 2f it can, and a NEW-VIEW without X's certificate decides otherwise: this is the behaviour that catches a
     * commit quorum that is too small.
     */
    SPLITTING_LEADER(List.of(Refusal.WRONG_VIEW)),
    /**
     * Corrupted or empty envelope MACs; requests (forwarded or pre-prepared) with garbage client MACs, and requests no
     * client sent.
     */
    FORGED_MACS(List.of(Refusal.BAD_MAC, Refusal.BAD_REQUEST_AUTH)),
    /** PRE-PREPARE digests that do not match the request, changed payloads, PREPARE/COMMIT digests of nothing agreed. */
    WRONG_DIGESTS(List.of(Refusal.DIGEST_MISMATCH, Refusal.EQUIVOCATION, Refusal.BAD_REQUEST_AUTH)),
    /** Resends its own old envelopes, and PREPAREs and COMMITs that claim another replica as their sender. */
    REPLAYS(List.of(Refusal.FORGED_SENDER, Refusal.WRONG_LEADER)),
    /**
     * Every VIEW-CHANGE it sends, and one now and then unprompted, carries a {@link Lie} the core detects (forged stable
     * proofs and forged signatures among them).
     */
    LYING_VIEW_CHANGE(List.of(Refusal.BAD_VIEW_CHANGE, Refusal.BAD_SIGNATURE)),
    /**
     * As a leader sends no PRE-PREPARE (forcing view changes), and lies about its own state, which nobody can detect:
     * every VIEW-CHANGE claims its first instances prepared at view newView-1 with values it never prepared (requests it
     * saw, or EMPTY). Rule A must never adopt them (they lack f+1 backing Q entries). Nothing to refuse.
     */
    LYING_PREPARED(List.of()),
    /**
     * As a leader sends no PRE-PREPARE (forcing view changes); as a primary: NEW-VIEWs of VIEW-CHANGEs it made up
     * (others' signatures forged), unprompted, for the next view it leads; and its real NEW-VIEWs rewritten with
     * choices rules A/B do not allow.
     */
    FORGED_NEW_VIEW(List.of(Refusal.BAD_NEW_VIEW)),
    /**
     * CHECKPOINTs with a consistent wrong digest ({@link Adversary#wrongDigest}), far-future ones, ones at
     * non-checkpoint numbers, made-up signatures.
     */
    WRONG_CHECKPOINTS(List.of(Refusal.CHECKPOINT_MISMATCH, Refusal.BAD_CHECKPOINT, Refusal.BAD_SIGNATURE)),
    /** EMPTY PRE-PREPAREs for instances it does not lead, and for another pillar's instances. */
    FOREIGN_EMPTIES(List.of(Refusal.WRONG_LEADER, Refusal.WRONG_PILLAR)),
    /**
     * Runs the protocol correctly, but holds every PRE-PREPARE it sends for just under the view-change timeout
     * ({@link Adversary#slowLeaderDelayTicks}) before it goes out, as Aardvark's slow primary does: slow enough to cost
     * throughput, never slow enough to trip a fixed timeout. Nothing to refuse.
     */
    SLOW_LEADER(List.of());

    private final List<Refusal> refusedAs;

    ByzantineBehaviour(List<Refusal> refusedAs) {
        this.refusedAs = refusedAs;
    }

    /** Refusals at correct replicas that show the attack arrived (empty: nobody can refuse it). */
    public List<Refusal> refusedAs() {
        return refusedAs;
    }

    /** Whether the behaviour attacks as a leader, so that a campaign makes it the primary of view 0. */
    public boolean leadsFirst() {
        return this == SILENT || this == EQUIVOCATING_LEADER || this == SPLITTING_LEADER || this == WRONG_DIGESTS
                || this == FORGED_MACS || this == LYING_PREPARED || this == FORGED_NEW_VIEW || this == SLOW_LEADER;
    }
}
