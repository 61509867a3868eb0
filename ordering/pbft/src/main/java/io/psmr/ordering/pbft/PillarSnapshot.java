package io.psmr.ordering.pbft;

import java.util.EnumMap;
import java.util.Map;

/**
 * What one pillar of a running replica last said about itself, for a status page: taken by the pillar's agent on its
 * own thread (the core is not thread-safe) about once per tick, read from any thread.
 *
 * @param pillar       the pillar
 * @param view         its current view (-1 if its core does not say)
 * @param lowWatermark h, the last stable checkpoint it knows (0 before the first; -1 if its core does not say)
 * @param refusals     its core's refused inputs by reason (only reasons counted at least once)
 * @param malformed    frames and requests its agent could not decode
 * @param excluded     the replicas its leader selection keeps from leading its next instance, each with the last
 *                     instance through which it is excluded (empty if none, or if its core does not say)
 * @param changingTo   the view it is changing to while it changes views; otherwise {@code view}
 * @param leftBecause  why it left its last view (null before its first view change, or if its core does not say)
 */
public record PillarSnapshot(int pillar, long view, long lowWatermark, Map<Refusal, Long> refusals, long malformed,
                             Map<Integer, Long> excluded, long changingTo, ViewChangeCause leftBecause) {

    /** Copies. */
    public PillarSnapshot {
        refusals = refusals.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(refusals));
        excluded = excluded.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(excluded));
    }

    /** With no replica excluded from leading, and not changing views. */
    public PillarSnapshot(int pillar, long view, long lowWatermark, Map<Refusal, Long> refusals, long malformed) {
        this(pillar, view, lowWatermark, refusals, malformed, Map.of(), view, null);
    }

    /** Whether the pillar is changing views. */
    public boolean isChangingView() {
        return changingTo != view;
    }

    /** Refusals of every reason together. */
    public long totalRefusals() {
        return refusals.values().stream().mapToLong(Long::longValue).sum();
    }
}
