package io.psmr.bench.chaos;

import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A bounded, seeded schedule of faults: a pure function of the seed, the targets (the cluster's
 * membership) and the settings, so the same seed on the same cluster gives the same (time, fault,
 * node) list. Immutable.
 *
 * <p>Faults come every {@code minGap..maxGap} ms from the start; at each slot a node is drawn among
 * the targets that are not faulted then and whose kind (and the total) is below its bound, and a
 * kind among the enabled ones (and for a Byzantine fault a mode among the settings' modes). A slot
 * with no eligible node stays empty. Heals planned at or before
 * a slot happen before it, so the bounds hold at every instant. Every fault is injected and healed
 * by {@code duration − tail}, except a kill without {@code restart}, which the final heal undoes.
 *
 * @param seed   the seed it came from
 * @param faults the faults in injection order
 */
public record FaultSchedule(long seed, List<PlannedFault> faults) {

    /** Copies the list. */
    public FaultSchedule {
        faults = List.copyOf(faults);
    }

    /** Draws the schedule. */
    public static FaultSchedule generate(long seed, FaultTargets targets, ScheduleSettings s) {
        SplittableRandom random = new SplittableRandom(seed); // mixes the seed: close seeds give unrelated schedules
        long last = s.durationMillis() - s.tailMillis(); // every heal during the load by then
        List<PlannedFault> faults = new ArrayList<>();
        List<PlannedFault> active = new ArrayList<>();
        long t = 0;
        while (true) {
            t += s.minGapMillis() + (long) (random.nextDouble() * (s.maxGapMillis() - s.minGapMillis()));
            if (t >= last) {
                break;
            }
            long now = t;
            active.removeIf(f -> !f.atEnd() && f.healAtMillis() <= now);
            Map<String, Integer> downByGroup = new HashMap<>();
            for (PlannedFault f : active) {
                downByGroup.merge(f.group(), 1, Integer::sum);
            }
            List<String[]> eligible = new ArrayList<>(); // {node, group}
            if (active.size() < s.maxDown()) {
                for (FaultGroup g : targets.groups()) {
                    if (downByGroup.getOrDefault(g.kind(), 0) >= g.maxDown()) {
                        continue;
                    }
                    for (String n : g.nodes()) {
                        if (active.stream().noneMatch(f -> f.node().equals(n))) {
                            eligible.add(new String[] {n, g.kind()});
                        }
                    }
                }
            }
            // Draw even when nothing is eligible, so that one slot's outcome does not shift the next slots' draws.
            int nodeDraw = random.nextInt(Integer.MAX_VALUE);
            FaultKind kind = s.kinds().get(random.nextInt(s.kinds().size()));
            double lengthDraw = random.nextDouble();
            // Drawn only for a Byzantine fault, so that schedules without one stay those of earlier seeds.
            ByzantineMode mode = kind == FaultKind.BYZANTINE ? s.modes().get(random.nextInt(s.modes().size())) : null;
            if (eligible.isEmpty()) {
                continue;
            }
            String[] target = eligible.get(nodeDraw % eligible.size());
            PlannedFault f;
            if (kind == FaultKind.KILL && !s.restart()) {
                f = new PlannedFault(t, kind, target[0], target[1], s.durationMillis(), true);
            } else {
                long min = s.minMillis(kind);
                long max = s.maxMillis(kind);
                long heal = t + min + (long) (lengthDraw * (max - min));
                if (t + min > last) {
                    continue; // too late to inject and heal it during the load
                }
                f = new PlannedFault(t, kind, target[0], target[1], Math.min(heal, last), false, mode);
            }
            faults.add(f);
            active.add(f);
        }
        return new FaultSchedule(seed, faults);
    }

    /** The most faults active at one instant, over all kinds ({@code group} null) or in one kind. */
    public int maxConcurrent(String group) {
        int most = 0;
        for (PlannedFault a : faults) {
            int n = 0;
            for (PlannedFault b : faults) {
                if ((group == null || b.group().equals(group)) && b.atMillis() <= a.atMillis() && a.atMillis() < b.healAtMillis()) {
                    n++;
                }
            }
            most = Math.max(most, n);
        }
        return most;
    }
}
