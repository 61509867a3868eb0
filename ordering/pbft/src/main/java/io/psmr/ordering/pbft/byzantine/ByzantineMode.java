package io.psmr.ordering.pbft.byzantine;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What one deliberately Byzantine replica process does, by the name it has on the command line and in
 * {@code cluster.json}: each mode but {@link #WRONG_REPLIES} is a {@link ByzantineBehaviour} that
 * {@link ByzantinePillarNetwork} acts out on the replica's outgoing envelopes ({@link #behaviour()}), the same
 * transformations the core's simulated Byzantine campaign uses; {@link #WRONG_REPLIES} lies to clients instead.
 * <b>A testing and demonstration tool, never for production</b>: it exists to show that f such replicas cannot make
 * correct replicas disagree nor clients accept a wrong result.
 *
 * <p>Every mode acts only as its own replica: it MACs and signs with its own keys, so anything it claims on another's
 * behalf is refused by the receiver.
 */
public enum ByzantineMode {
    /** Sends nothing to the other replicas (as a leader: they change views away from it). */
    SILENT("silent", "sends no PBFT message at all", ByzantineBehaviour.SILENT),
    /** As a leader, a different PRE-PREPARE per receiver for one (view, seq): the request, another one or EMPTY, nothing. */
    EQUIVOCATING_LEADER("equivocating-leader", "as a leader, pre-prepares different values at different replicas",
            ByzantineBehaviour.EQUIVOCATING_LEADER),
    /** Corrupted or empty envelope MACs; requests (forwarded or pre-prepared) with garbage client MACs, and made-up requests. */
    FORGED_MACS("forged-macs", "corrupts envelope MACs and client MACs, sends requests no client sent",
            ByzantineBehaviour.FORGED_MACS),
    /** PRE-PREPARE digests that do not match the request, changed payloads, PREPARE/COMMIT digests of nothing. */
    WRONG_DIGESTS("wrong-digests", "sends digests that match no request", ByzantineBehaviour.WRONG_DIGESTS),
    /** Resends its own old envelopes and claims its messages come from other replicas (message-level sender forged). */
    REPLAYS("replays", "replays its old envelopes and forges the sender inside messages", ByzantineBehaviour.REPLAYS),
    /** Every VIEW-CHANGE it sends (and one now and then unprompted) carries a lie the core detects. */
    LYING_VIEW_CHANGE("lying-view-change", "sends VIEW-CHANGEs with detectable lies", ByzantineBehaviour.LYING_VIEW_CHANGE),
    /** CHECKPOINTs with a consistent wrong digest, far-future ones, ones at non-checkpoint numbers, made-up signatures. */
    WRONG_CHECKPOINTS("wrong-checkpoints", "sends wrong, far-future and badly signed CHECKPOINTs",
            ByzantineBehaviour.WRONG_CHECKPOINTS),
    /** EMPTY PRE-PREPAREs for instances it does not lead, and for another pillar's instances. */
    FOREIGN_EMPTIES("foreign-empties", "pre-prepares EMPTY for instances it does not lead or of another pillar",
            ByzantineBehaviour.FOREIGN_EMPTIES),
    /**
     * Runs the protocol correctly, but holds every PRE-PREPARE it sends for just under the view-change timeout
     * ({@link Adversary#SLOW_LEADER_TIMEOUT_FRACTION} of {@code requestTimeoutTicks}) before it goes out,
     * as Aardvark's slow primary does: slow enough to cost throughput, never slow enough to trip a fixed timeout.
     */
    SLOW_LEADER("slow-leader", "as a leader, holds each pre-prepare for just under the view-change timeout",
            ByzantineBehaviour.SLOW_LEADER),
    /** Orders correctly, but forges the results of the replies it sends to clients (the store's reply path). */
    WRONG_REPLIES("wrong-replies", "orders correctly but forges the results it replies to clients", null);

    private final String cliName;
    private final String description;
    private final ByzantineBehaviour behaviour;

    ByzantineMode(String cliName, String description, ByzantineBehaviour behaviour) {
        this.cliName = cliName;
        this.description = description;
        this.behaviour = behaviour;
    }

    /** The name on the command line and in {@code cluster.json}, such as {@code equivocating-leader}. */
    public String cliName() {
        return cliName;
    }

    /** One line saying what the replica does. */
    public String description() {
        return description;
    }

    /**
     * The attack on the replica's PBFT envelopes that {@link ByzantinePillarNetwork} acts out; empty for wrong-replies,
     * which leaves every envelope as it is.
     */
    public Optional<ByzantineBehaviour> behaviour() {
        return Optional.ofNullable(behaviour);
    }

    /**
     * Whether the mode acts on the replica's PBFT envelopes ({@link ByzantinePillarNetwork}: rewrites, drops, adds or
     * delays them); all but wrong-replies.
     */
    public boolean rewritesEnvelopes() {
        return behaviour != null;
    }

    /** Every mode's {@link #cliName()}, comma-separated, in declaration order. */
    public static String names() {
        return Arrays.stream(values()).map(ByzantineMode::cliName).collect(Collectors.joining(", "));
    }

    /**
     * The mode called {@code name}.
     *
     * @throws IllegalArgumentException naming the unknown mode and listing the modes
     */
    public static ByzantineMode fromCliName(String name) {
        for (ByzantineMode m : values()) {
            if (m.cliName.equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown Byzantine mode '" + name + "'; the modes are " + names());
    }

    @Override
    public String toString() {
        return cliName;
    }
}
