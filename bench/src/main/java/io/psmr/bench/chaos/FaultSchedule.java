package io.psmr.bench.chaos;

import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

    /**
     * Draws the schedule. With {@link ScheduleSettings#beyondF()} each kind's bound becomes all of its targets but one
     * ({@link #bounds}), and Byzantine faults alone keep the kind's own bound.
     */
    public static FaultSchedule generate(long seed, FaultTargets given, ScheduleSettings s) {
        FaultTargets targets = bounds(given, s.beyondF());
        SplittableRandom random = new SplittableRandom(seed); // mixes the seed: close seeds give unrelated schedules
        long last = s.durationMillis() - s.tailMillis(); // every heal during the load by then
        Map<String, String> groupOf = new LinkedHashMap<>();
        for (FaultGroup g : targets.groups()) {
            g.nodes().forEach(n -> groupOf.put(n, g.kind()));
        }
        String voters = targets.groups().isEmpty() ? null : targets.groups().get(0).kind();
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
            Set<String> faulted = new HashSet<>();
            int down = 0;
            for (PlannedFault f : active) {
                for (String n : faultedBy(f)) {
                    downByGroup.merge(groupOf.getOrDefault(n, f.group()), 1, Integer::sum);
                    faulted.add(n);
                    down++;
                }
                if (f.kind() == FaultKind.ISOLATE_LEADER) {
                    downByGroup.merge(voters, 1, Integer::sum);
                    down++;
                }
            }
            List<String[]> eligible = new ArrayList<>(); // {node, group}; replaced by an empty list when none may be
            if (down < s.maxDown()) {
                for (FaultGroup g : targets.groups()) {
                    if (downByGroup.getOrDefault(g.kind(), 0) >= g.maxDown()) {
                        continue;
                    }
                    for (String n : g.nodes()) {
                        if (!faulted.contains(n)) {
                            eligible.add(new String[] {n, g.kind()});
                        }
                    }
                }
            }
            // Draw even when nothing is eligible, so that one slot's outcome does not shift the next slots' draws.
            int nodeDraw = random.nextInt(Integer.MAX_VALUE);
            FaultKind kind = s.kinds().get(random.nextInt(s.kinds().size()));
            if (kind == FaultKind.BYZANTINE && s.beyondF()) {
                // Beyond f for crashes, pauses and cuts only: more than f Byzantine replicas is no fault PBFT tolerates.
                long byzantine = active.stream().filter(a -> a.kind() == FaultKind.BYZANTINE).count();
                if (byzantine >= given.groups().get(0).maxDown()) {
                    eligible = List.of();
                }
            }
            double lengthDraw = random.nextDouble();
            // Drawn only for a Byzantine fault, so that schedules without one stay those of earlier seeds.
            ByzantineMode mode = kind == FaultKind.BYZANTINE ? s.modes().get(random.nextInt(s.modes().size())) : null;
            long min = s.minMillis(kind);
            long heal = Math.min(t + min + (long) (lengthDraw * (s.maxMillis(kind) - min)), last);
            PlannedFault f;
            if (kind.network()) {
                if (active.stream().anyMatch(a -> a.kind().network()) || t + min > last) {
                    continue; // one network fault at a time: each heals the links it set
                }
                f = network(t, kind, heal, new SplittableRandom(nodeDraw), eligible, groupOf, downByGroup, down,
                        targets, s.maxDown(), voters);
                if (f == null) {
                    continue;
                }
            } else {
                if (eligible.isEmpty()) {
                    continue;
                }
                String[] target = eligible.get(nodeDraw % eligible.size());
                if (kind == FaultKind.KILL && !s.restart()) {
                    f = new PlannedFault(t, kind, target[0], target[1], s.durationMillis(), true);
                } else {
                    if (t + min > last) {
                        continue; // too late to inject and heal it during the load
                    }
                    f = new PlannedFault(t, kind, target[0], target[1], heal, false, mode);
                }
            }
            faults.add(f);
            active.add(f);
        }
        return new FaultSchedule(seed, faults);
    }

    /**
     * {@code targets} with each kind's bound as the schedule applies it: its own (f), or with {@code beyondF} all of its
     * targets but one, so that a quorum can be lost while one node of each kind stays untouched.
     */
    static FaultTargets bounds(FaultTargets targets, boolean beyondF) {
        if (!beyondF) {
            return targets;
        }
        return new FaultTargets(targets.groups().stream().map(g -> new FaultGroup(g.kind(), g.nodes(),
                Math.max(g.maxDown(), g.nodes().size() - 1))).toList());
    }

    /** The nodes a fault takes out of the others' majority: its node, or a network fault's cut-off side. */
    static List<String> faultedBy(PlannedFault f) {
        return f.kind().network() ? f.cutOff() : List.of(f.node());
    }

    /**
     * A network fault of {@code kind} at {@code t}, or null if none fits the bounds now. Partitions draw their side
     * from {@code net}, never more of a group than its bound allows beside what is already faulted.
     */
    private static PlannedFault network(long t, FaultKind kind, long heal, SplittableRandom net, List<String[]> eligible,
                                        Map<String, String> groupOf, Map<String, Integer> downByGroup, int down,
                                        FaultTargets targets, int maxDown, String voters) {
        long seed = net.nextLong();
        switch (kind) {
            case PARTITION_HALVES -> {
                List<String> nodes = new ArrayList<>(groupOf.keySet());
                List<String> shuffled = new ArrayList<>();
                while (!nodes.isEmpty()) {
                    shuffled.add(nodes.remove(net.nextInt(nodes.size())));
                }
                Map<String, Integer> room = new HashMap<>();
                targets.groups().forEach(g -> room.put(g.kind(), g.maxDown() - downByGroup.getOrDefault(g.kind(), 0)));
                List<String> side = new ArrayList<>();
                for (String n : shuffled) {
                    if (side.size() >= groupOf.size() / 2 || down + side.size() >= maxDown) {
                        break;
                    }
                    boolean free = eligible.stream().anyMatch(e -> e[0].equals(n));
                    if (free && room.merge(groupOf.get(n), -1, Integer::sum) >= 0) {
                        side.add(n);
                    }
                }
                return side.isEmpty() ? null : new PlannedFault(t, kind, side.get(0), PlannedFault.NETWORK, heal, false,
                        null, side, null, seed);
            }
            case ISOLATE_LEADER -> {
                FaultGroup g = targets.groups().get(0);
                boolean room = down < maxDown && downByGroup.getOrDefault(voters, 0) < g.maxDown();
                return room ? new PlannedFault(t, kind, PlannedFault.LEADER, PlannedFault.NETWORK, heal, false, null,
                        List.of(), null, seed) : null;
            }
            case ONE_WAY -> {
                if (eligible.isEmpty()) {
                    return null;
                }
                String a = eligible.get(net.nextInt(eligible.size()))[0];
                List<String> others = groupOf.keySet().stream().filter(n -> !n.equals(a)).toList();
                if (others.isEmpty()) {
                    return null;
                }
                String b = others.get(net.nextInt(others.size()));
                return new PlannedFault(t, kind, a, PlannedFault.NETWORK, heal, false, null, List.of(a), b, seed);
            }
            default -> { // every node still sees a majority: nobody is cut off from the others
                return new PlannedFault(t, kind, PlannedFault.ALL, PlannedFault.NETWORK, heal, false, null, List.of(),
                        null, seed);
            }
        }
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
