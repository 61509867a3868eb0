package io.psmr.bench.chaos;

import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.List;
import java.util.Locale;

/**
 * One fault of a schedule: at {@code atMillis} after the load starts, {@code kind} on {@code node},
 * healed at {@code healAtMillis} (for a kill without {@code restart} in the campaign: the end).
 *
 * @param atMillis     when to inject it, from the start of the load
 * @param kind         what
 * @param node         which node; for a network fault the first node it cuts off, or {@value #ALL} for one that acts on
 *                     every link ({@code partition-majorities-ring}, {@code slow-links}, {@code flaky}), or
 *                     {@value #LEADER} for {@code isolate-leader}, whose node is the leader when it strikes
 * @param group        the node's kind (its {@link FaultGroup}), or {@value #NETWORK} for a network fault
 * @param healAtMillis when to heal it, from the start of the load
 * @param atEnd        healed by the campaign's final heal, not during the load
 * @param mode         for a {@link FaultKind#BYZANTINE} fault the mode the replica runs in, else null
 * @param cutOff       for a network fault the nodes it cuts off from the others' majority (they count against the bounds
 *                     as faulted nodes), else empty
 * @param peer         for {@code one-way} the node that {@code node} no longer hears from, else null
 * @param seed         for a network fault the seed of what it draws when it strikes (delays, links to reset), else 0
 */
public record PlannedFault(long atMillis, FaultKind kind, String node, String group, long healAtMillis, boolean atEnd,
                           ByzantineMode mode, List<String> cutOff, String peer, long seed) {

    /** The node of a network fault that acts on every link. */
    public static final String ALL = "*";
    /** The node of an {@code isolate-leader} fault until it strikes. */
    public static final String LEADER = "leader";
    /** The group of a network fault. */
    public static final String NETWORK = "network";

    /** A fault that is not Byzantine. */
    public PlannedFault(long atMillis, FaultKind kind, String node, String group, long healAtMillis, boolean atEnd) {
        this(atMillis, kind, node, group, healAtMillis, atEnd, null);
    }

    /** A fault on one process. */
    public PlannedFault(long atMillis, FaultKind kind, String node, String group, long healAtMillis, boolean atEnd,
                        ByzantineMode mode) {
        this(atMillis, kind, node, group, healAtMillis, atEnd, mode, List.of(), null, 0);
    }

    /** Checks that a mode comes with a Byzantine fault and only with one, and copies the list. */
    public PlannedFault {
        if ((kind == FaultKind.BYZANTINE) != (mode != null)) {
            throw new IllegalArgumentException("a byzantine fault, and only one, has a mode: " + kind + " " + mode);
        }
        cutOff = List.copyOf(cutOff);
        if ((kind == FaultKind.ONE_WAY) != (peer != null)) {
            throw new IllegalArgumentException("a one-way fault, and only one, has a peer: " + kind + " " + peer);
        }
    }

    /** The kind as reports print it: {@code byzantine (MODE)} for a Byzantine fault. */
    public String kindName() {
        return mode == null ? kind.cliName() : kind.cliName() + " (" + mode.cliName() + ")";
    }

    /** The target as reports print it: the node, a one-way fault's direction, or the side a partition cut off. */
    public String target() {
        if (kind == FaultKind.ONE_WAY) {
            return peer + " -/-> " + node;
        }
        if (kind == FaultKind.PARTITION_HALVES) {
            return String.join(",", cutOff) + " | rest";
        }
        return node;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%6.1f s  %-5s %-12s healed at %s", atMillis / 1000.0, kindName(), target(),
                atEnd ? "the end" : String.format(Locale.ROOT, "%.1f s", healAtMillis / 1000.0));
    }
}
