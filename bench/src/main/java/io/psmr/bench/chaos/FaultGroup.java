package io.psmr.bench.chaos;

import java.util.List;
import java.util.Objects;

/**
 * Nodes of one kind that faults may target, and how many of them may be down or paused at once.
 *
 * @param kind    what they are, for reports: {@code acceptor}, {@code replica} or {@code peer}
 * @param nodes   the nodes faults may target (those the cluster can restart), in cluster order
 * @param maxDown how many of the kind may be faulted at the same time
 */
public record FaultGroup(String kind, List<String> nodes, int maxDown) {

    /** Copies the list and checks the bound. */
    public FaultGroup {
        Objects.requireNonNull(kind, "kind");
        nodes = List.copyOf(nodes);
        if (maxDown < 0) {
            throw new IllegalArgumentException("maxDown must be at least 0, got " + maxDown);
        }
    }
}
