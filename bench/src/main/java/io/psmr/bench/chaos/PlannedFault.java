package io.psmr.bench.chaos;

import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.Locale;

/**
 * One fault of a schedule: at {@code atMillis} after the load starts, {@code kind} on {@code node},
 * healed at {@code healAtMillis} (for a kill without {@code restart} in the campaign: the end).
 *
 * @param atMillis     when to inject it, from the start of the load
 * @param kind         what
 * @param node         which node
 * @param group        the node's kind (its {@link FaultGroup})
 * @param healAtMillis when to heal it, from the start of the load
 * @param atEnd        healed by the campaign's final heal, not during the load
 * @param mode         for a {@link FaultKind#BYZANTINE} fault the mode the replica runs in, else null
 */
public record PlannedFault(long atMillis, FaultKind kind, String node, String group, long healAtMillis, boolean atEnd,
                           ByzantineMode mode) {

    /** A fault that is not Byzantine. */
    public PlannedFault(long atMillis, FaultKind kind, String node, String group, long healAtMillis, boolean atEnd) {
        this(atMillis, kind, node, group, healAtMillis, atEnd, null);
    }

    /** Checks that a mode comes with a Byzantine fault and only with one. */
    public PlannedFault {
        if ((kind == FaultKind.BYZANTINE) != (mode != null)) {
            throw new IllegalArgumentException("a byzantine fault, and only one, has a mode: " + kind + " " + mode);
        }
    }

    /** The kind as reports print it: {@code byzantine (MODE)} for a Byzantine fault. */
    public String kindName() {
        return mode == null ? kind.cliName() : kind.cliName() + " (" + mode.cliName() + ")";
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%6.1f s  %-5s %-12s healed at %s", atMillis / 1000.0, kindName(), node,
                atEnd ? "the end" : String.format(Locale.ROOT, "%.1f s", healAtMillis / 1000.0));
    }
}
