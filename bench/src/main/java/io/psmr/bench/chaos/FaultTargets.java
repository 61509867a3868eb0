package io.psmr.bench.chaos;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which nodes of a cluster a fault campaign may target, grouped by kind with each kind's bound.
 *
 * <p>Bounds keep a majority of every voting kind up: Ring Paxos acceptors and Ratis peers allow
 * (n−1)/2 down at once; Ring Paxos replicas n−1 (one must stay live to answer). Only nodes the
 * cluster can restart are targets: the rule is the launcher's ({@code restartRefusal}), asked per
 * node, so replicas become targets on the day restart accepts them. Immutable.
 *
 * @param groups the kinds, each with its targets and bound
 */
public record FaultTargets(List<FaultGroup> groups) {

    /** Copies the list. */
    public FaultTargets {
        groups = List.copyOf(groups);
    }

    /**
     * The targets of {@code cluster}.
     *
     * @param restartRefusal why a node cannot be restarted, or empty if it can
     *                       ({@link io.psmr.kvstore.cluster.ClusterLauncher#restartRefusal})
     */
    public static FaultTargets of(ClusterDescriptor cluster, Function<String, Optional<String>> restartRefusal) {
        List<FaultGroup> groups = new ArrayList<>();
        if (cluster.ordering() == OrderingProtocol.RATIS) {
            groups.add(group("peer", cluster.replicas(), (cluster.replicas().size() - 1) / 2, restartRefusal));
        } else {
            groups.add(group("acceptor", cluster.acceptors(), (cluster.acceptors().size() - 1) / 2, restartRefusal));
            groups.add(group("replica", cluster.replicas(), cluster.replicas().size() - 1, restartRefusal));
        }
        return new FaultTargets(groups);
    }

    private static FaultGroup group(String kind, List<ClusterNode> nodes, int maxDown,
                                    Function<String, Optional<String>> restartRefusal) {
        List<String> restartable = nodes.stream().map(ClusterNode::name)
                .filter(n -> restartRefusal.apply(n).isEmpty()).toList();
        return new FaultGroup(kind, restartable, maxDown);
    }

    /** Whether any node may be faulted at all. */
    public boolean any() {
        return groups.stream().anyMatch(g -> g.maxDown() > 0 && !g.nodes().isEmpty());
    }

    /** One line per kind: its targets and bound, for the report. */
    public List<String> describe() {
        return groups.stream().map(g -> g.kind() + "s " + (g.nodes().isEmpty() ? "(none restartable)" : g.nodes())
                + ", at most " + g.maxDown() + " down at once").toList();
    }
}
