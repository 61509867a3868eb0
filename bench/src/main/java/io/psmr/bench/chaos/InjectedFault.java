package io.psmr.bench.chaos;

/**
 * A fault as the campaign carried it out.
 *
 * @param kind         what
 * @param node         which node
 * @param plannedMillis when the schedule placed it, from the start of the load
 * @param atMillis     when it was injected, from the start of the load
 * @param healedMillis when it was healed (restart served again, or SIGCONT sent), or -1 if it was not
 * @param healedAtEnd  healed by the final heal rather than during the load
 * @param error        what went wrong injecting or healing it, or null
 */
public record InjectedFault(FaultKind kind, String node, long plannedMillis, long atMillis, long healedMillis,
                            boolean healedAtEnd, String error) {

    /** Whether it was injected and healed without error. */
    public boolean clean() {
        return error == null && healedMillis >= 0;
    }
}
