package io.psmr.bench.chaos;

import io.psmr.ordering.pbft.byzantine.ByzantineMode;

/**
 * A fault as the campaign carried it out.
 *
 * @param kind         what
 * @param node         which node
 * @param plannedMillis when the schedule placed it, from the start of the load
 * @param atMillis     when it was injected, from the start of the load
 * @param healedMillis when it was healed (restart served again, or SIGCONT sent; on PBFT during the load, once the
 *                     replica also caught up), or -1 if it was not
 * @param healedAtEnd  healed by the final heal rather than during the load
 * @param error        what went wrong injecting or healing it, or null
 * @param mode         for a {@link FaultKind#BYZANTINE} fault the mode the replica ran in, else null
 * @param detail       for a network fault what it did to which links ({@code cut off [replica-2] from the rest}), else
 *                     null
 * @param minoritySide for a partition that cut the minority clients ({@link io.psmr.kvstore.cluster.links.LinkTable#CLIENTS_MINORITY})
 *                     off with its minority side, the nodes they still reached; else empty
 * @param cutMillis    for a network fault, when its links were set (rounded up), from the start of the load; else -1
 * @param healingMillis for a network fault, when its heal began to let its links pass (rounded down), or -1 if it was
 *                     not healed or is no network fault
 */
public record InjectedFault(FaultKind kind, String node, long plannedMillis, long atMillis, long healedMillis,
                            boolean healedAtEnd, String error, ByzantineMode mode, String detail,
                            java.util.List<String> minoritySide, long cutMillis, long healingMillis) {

    /** A fault on one process. */
    public InjectedFault(FaultKind kind, String node, long plannedMillis, long atMillis, long healedMillis,
                         boolean healedAtEnd, String error, ByzantineMode mode) {
        this(kind, node, plannedMillis, atMillis, healedMillis, healedAtEnd, error, mode, null);
    }

    /** A fault without a minority side. */
    public InjectedFault(FaultKind kind, String node, long plannedMillis, long atMillis, long healedMillis,
                         boolean healedAtEnd, String error, ByzantineMode mode, String detail) {
        this(kind, node, plannedMillis, atMillis, healedMillis, healedAtEnd, error, mode, detail, java.util.List.of(), -1,
                -1);
    }

    /** Copies the list. */
    public InjectedFault {
        minoritySide = java.util.List.copyOf(minoritySide);
    }

    /** Whether it was injected and healed without error. */
    public boolean clean() {
        return error == null && healedMillis >= 0;
    }

    /** The kind as reports print it: {@code byzantine (MODE)} for a Byzantine fault. */
    public String kindName() {
        return mode == null ? kind.cliName() : kind.cliName() + " (" + mode.cliName() + ")";
    }
}
