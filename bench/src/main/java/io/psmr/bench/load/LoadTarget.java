package io.psmr.bench.load;

import io.psmr.ordering.OrderingProtocol;

/**
 * Where a load run's replicas are: under which ordering, and whether they are embedded in the load
 * process or run as separate processes (a cluster started with {@code ./psmr cluster start}).
 *
 * @param ordering the ordering layer
 * @param embedded whether the replicas run inside the load process
 */
public record LoadTarget(OrderingProtocol ordering, boolean embedded) {

    /** Replicas inside the load process, under {@code ordering}. */
    public static LoadTarget embedded(OrderingProtocol ordering) {
        return new LoadTarget(ordering, true);
    }

    /** A cluster of processes under {@code ordering}. */
    public static LoadTarget cluster(OrderingProtocol ordering) {
        return new LoadTarget(ordering, false);
    }

    /** What the report says, e.g. {@code embedded, local sequencer}. */
    public String description() {
        return (embedded ? "embedded, " : "separate processes, ") + ordering.description();
    }
}
