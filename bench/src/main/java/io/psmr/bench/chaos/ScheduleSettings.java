package io.psmr.bench.chaos;

import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.List;
import java.util.Objects;

/**
 * The shape of a fault schedule, everything but the seed and the targets.
 *
 * @param durationMillis   how long the load runs; every fault is injected and (but a kill without
 *                         restart) healed at least {@code tailMillis} before it ends
 * @param kinds            the faults to draw from, in a fixed order
 * @param restart          killed nodes come back during the load (else at the end)
 * @param maxDown          most nodes faulted at once over all kinds (each kind's own bound also holds)
 * @param minGapMillis     least time between two faults
 * @param maxGapMillis     most time between two faults
 * @param minPauseMillis   shortest pause or network fault: above the failure detector's timeout
 * @param maxPauseMillis   longest pause or network fault
 * @param minDownMillis    shortest time a killed node stays down before its restart
 * @param maxDownMillis    longest
 * @param tailMillis       quiet time at the end of the load, after every heal
 * @param minByzantineMillis shortest time a replica stays Byzantine, from its Byzantine restart to its correct one
 * @param maxByzantineMillis longest
 * @param modes            the Byzantine modes a {@link FaultKind#BYZANTINE} fault draws from, in a fixed order
 * @param beyondF          let kills, pauses and network faults together cut off more of a kind than its bound (f), up to
 *                         all of its targets but one; Byzantine faults stay within the bound ({@code --beyond-f})
 */
public record ScheduleSettings(long durationMillis, List<FaultKind> kinds, boolean restart, int maxDown,
                               long minGapMillis, long maxGapMillis, long minPauseMillis, long maxPauseMillis,
                               long minDownMillis, long maxDownMillis, long tailMillis, long minByzantineMillis,
                               long maxByzantineMillis, List<ByzantineMode> modes, boolean beyondF) {

    /** Settings within the bounds. */
    public ScheduleSettings(long durationMillis, List<FaultKind> kinds, boolean restart, int maxDown,
                            long minGapMillis, long maxGapMillis, long minPauseMillis, long maxPauseMillis,
                            long minDownMillis, long maxDownMillis, long tailMillis, long minByzantineMillis,
                            long maxByzantineMillis, List<ByzantineMode> modes) {
        this(durationMillis, kinds, restart, maxDown, minGapMillis, maxGapMillis, minPauseMillis, maxPauseMillis,
                minDownMillis, maxDownMillis, tailMillis, minByzantineMillis, maxByzantineMillis, modes, false);
    }

    /**
     * The modes a campaign's Byzantine faults draw from: every mode. Each falsifies only what the replica sends (its
     * PBFT messages, or with {@code wrong-replies} its replies, which the client's f+1 vote must outvote), never what
     * it executes or checkpoints, so every mode tests the correct replicas or the client, and the checks stay
     * meaningful: a forged result the client accepted would fail linearizability.
     */
    public static final List<ByzantineMode> CAMPAIGN_MODES = List.of(ByzantineMode.values());

    /** Checks the ranges. */
    public ScheduleSettings {
        kinds = List.copyOf(Objects.requireNonNull(kinds, "kinds"));
        modes = List.copyOf(Objects.requireNonNull(modes, "modes"));
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("at least one fault kind is needed");
        }
        if (kinds.contains(FaultKind.BYZANTINE) && modes.isEmpty()) {
            throw new IllegalArgumentException("byzantine faults need at least one mode");
        }
        if (maxDown < 1) {
            throw new IllegalArgumentException("maxDown must be at least 1, got " + maxDown);
        }
        if (minGapMillis < 1 || maxGapMillis < minGapMillis || minPauseMillis < 1 || maxPauseMillis < minPauseMillis
                || minDownMillis < 1 || maxDownMillis < minDownMillis || tailMillis < 0 || durationMillis < 1
                || minByzantineMillis < 1 || maxByzantineMillis < minByzantineMillis) {
            throw new IllegalArgumentException("bad schedule ranges: " + this);
        }
    }

    /** The shortest length of a fault of {@code kind} during the load. */
    public long minMillis(FaultKind kind) {
        return switch (kind) {
            case KILL -> minDownMillis;
            case BYZANTINE -> minByzantineMillis;
            default -> minPauseMillis; // a pause, or a network fault: longer than the failure detector's timeout
        };
    }

    /** The longest length of a fault of {@code kind} during the load. */
    public long maxMillis(FaultKind kind) {
        return switch (kind) {
            case KILL -> maxDownMillis;
            case BYZANTINE -> maxByzantineMillis;
            default -> maxPauseMillis;
        };
    }

    /** The quiet time at the end of the load in {@link #defaults}. */
    public static final long TAIL_MILLIS = 1000;

    /**
     * The campaign's defaults: a fault every 1–3 s, a pause from twice the failure detector's timeout
     * (at least 1 s) for up to 2 s more, a killed node down for 1–3 s, a replica Byzantine for 3–6 s
     * in one of the {@link #CAMPAIGN_MODES}, and a quiet last second.
     *
     * @param detectorMillis the failure detector's timeout (Ring Paxos suspect ticks × tick, Ratis' election timeout, or
     *                       PBFT's request timeout before a view change)
     */
    public static ScheduleSettings defaults(long durationMillis, List<FaultKind> kinds, boolean restart, int maxDown,
                                            long detectorMillis) {
        long minPause = Math.max(1000, 2 * detectorMillis);
        return new ScheduleSettings(durationMillis, kinds, restart, maxDown, 1000, 3000, minPause, minPause + 2000,
                1000, 3000, TAIL_MILLIS, 3000, 6000, CAMPAIGN_MODES);
    }

    /** These settings, letting faults cut off more than a kind's bound at once ({@code beyondF}) or not. */
    public ScheduleSettings withBeyondF(boolean beyond) {
        return new ScheduleSettings(durationMillis, kinds, restart, maxDown, minGapMillis, maxGapMillis, minPauseMillis,
                maxPauseMillis, minDownMillis, maxDownMillis, tailMillis, minByzantineMillis, maxByzantineMillis, modes,
                beyond);
    }
}
