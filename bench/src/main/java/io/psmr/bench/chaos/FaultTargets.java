package io.psmr.bench.chaos;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Which nodes of a cluster a fault campaign may target, grouped by kind with each kind's bound.
 *
 * <p>Bounds keep a majority of every voting kind up: Ring Paxos acceptors and Ratis peers allow
 * (n−1)/2 down at once; Ring Paxos replicas n−1 (one must stay live to answer). PBFT replicas allow
 * f = (n−1)/3 faulty at once, Byzantine ones included, less those already faulty when the campaign
 * starts ({@link #faultyAtStart}), which are no targets. Only nodes the cluster can restart are
 * targets: the rule is the launcher's ({@code restartRefusal}), asked per node, so replicas become
 * targets on the day restart accepts them. Immutable.
 *
 * @param groups the kinds, each with its targets and bound
 */
public record FaultTargets(List<FaultGroup> groups) {

    /** Copies the list. */
    public FaultTargets {
        groups = List.copyOf(groups);
    }

    /**
     * The targets of {@code cluster}, every node correct at the start.
     *
     * @param restartRefusal why a node cannot be restarted, or empty if it can
     *                       ({@link io.psmr.kvstore.cluster.ClusterLauncher#restartRefusal})
     */
    public static FaultTargets of(ClusterDescriptor cluster, Function<String, Optional<String>> restartRefusal) {
        return of(cluster, restartRefusal, Map.of());
    }

    /**
     * The targets of {@code cluster}.
     *
     * @param restartRefusal why a node cannot be restarted, or empty if it can
     *                       ({@link io.psmr.kvstore.cluster.ClusterLauncher#restartRefusal})
     * @param faultyAtStart  PBFT replicas faulty before the campaign ({@link #faultyAtStart}): they use up part of
     *                       the bound of f and are no targets; ignored for the other orderings
     * @throws IllegalArgumentException if a PBFT cluster has more than f replicas faulty at the start
     */
    public static FaultTargets of(ClusterDescriptor cluster, Function<String, Optional<String>> restartRefusal,
                                  Map<String, String> faultyAtStart) {
        List<FaultGroup> groups = new ArrayList<>();
        if (cluster.ordering() == OrderingProtocol.PBFT) {
            int f = cluster.pbft().f();
            if (faultyAtStart.size() > f) {
                throw new IllegalArgumentException(tooManyFaulty(cluster, faultyAtStart));
            }
            List<ClusterNode> correct = cluster.replicas().stream().filter(n -> !faultyAtStart.containsKey(n.name())).toList();
            groups.add(group("replica", correct, f - faultyAtStart.size(), restartRefusal));
        } else if (cluster.ordering() == OrderingProtocol.RATIS) {
            groups.add(group("peer", cluster.replicas(), (cluster.replicas().size() - 1) / 2, restartRefusal));
        } else {
            groups.add(group("acceptor", cluster.acceptors(), (cluster.acceptors().size() - 1) / 2, restartRefusal));
            groups.add(group("replica", cluster.replicas(), cluster.replicas().size() - 1, restartRefusal));
        }
        return new FaultTargets(groups);
    }

    /**
     * The replicas of a PBFT cluster that are faulty now, in cluster order, each with why: {@code byzantine MODE}
     * (cluster.json runs it in a Byzantine mode) or {@code down} (its process is not running); empty for the other
     * orderings, whose campaigns bound crash faults by kind instead.
     */
    public static Map<String, String> faultyAtStart(ClusterDescriptor cluster) {
        Map<String, String> faulty = new LinkedHashMap<>();
        if (cluster.ordering() != OrderingProtocol.PBFT) {
            return faulty;
        }
        for (ClusterNode n : cluster.replicas()) {
            Optional<String> mode = cluster.pbft().byzantineMode(n.name()).map(m -> "byzantine " + m.cliName());
            if (mode.isPresent()) {
                faulty.put(n.name(), mode.get());
            } else if (n.liveProcess().isEmpty()) {
                faulty.put(n.name(), "down");
            }
        }
        return faulty;
    }

    /** f = (n−1)/3, as messages name it: {@code f = (n-1)/3 = 1 of 4 replicas}. */
    static String bound(ClusterDescriptor cluster) {
        return "f = (n-1)/3 = " + cluster.pbft().f() + " of " + cluster.replicas().size() + " replicas";
    }

    /**
     * Why a campaign cannot run against a PBFT cluster with these replicas faulty at the start, or empty if it can:
     * more than f of them, or f of them, which leaves no fault to inject.
     */
    public static Optional<String> pbftRefusal(ClusterDescriptor cluster, Map<String, String> faulty) {
        int f = cluster.pbft().f();
        if (faulty.size() > f) {
            return Optional.of(tooManyFaulty(cluster, faulty));
        }
        if (faulty.size() == f) {
            return Optional.of(faulty.size() + (faulty.size() == 1 ? " replica is" : " replicas are")
                    + " already Byzantine or down (" + list(faulty) + "): with at most " + bound(cluster)
                    + " faulty at once, no fault is left to inject");
        }
        return Optional.empty();
    }

    /** Why a PBFT cluster with these faulty replicas cannot run a campaign: more than f of them. */
    static String tooManyFaulty(ClusterDescriptor cluster, Map<String, String> faulty) {
        return faulty.size() + " replicas are already Byzantine or down (" + list(faulty) + "), more than the "
                + bound(cluster) + " that may be faulty at once";
    }

    /** {@code replica-2 byzantine silent, replica-3 down}. */
    static String list(Map<String, String> faulty) {
        return String.join(", ", faulty.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList());
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
