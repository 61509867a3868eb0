package io.psmr.bench.chaos;

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
 */
public record PlannedFault(long atMillis, FaultKind kind, String node, String group, long healAtMillis, boolean atEnd) {

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "%6.1f s  %-5s %-12s healed at %s", atMillis / 1000.0, kind.cliName(), node,
                atEnd ? "the end" : String.format(java.util.Locale.ROOT, "%.1f s", healAtMillis / 1000.0));
    }
}
