package io.psmr.kvstore.cluster;

import io.psmr.kvstore.pbft.PbftClusterSettings;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.LeaderSelection;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * The shape of a new cluster: its ordering protocol and that protocol's settings, what {@link ClusterLauncher#start}
 * starts and {@code cluster init} writes. Each protocol's {@link OrderingBinding} lays it out and ignores the settings
 * it does not take ({@link OrderingBinding#settings()}): acceptors and client hosts are Ring Paxos', pillars,
 * rotation, checkpoint interval and Byzantine replicas PBFT's.
 *
 * <p>Build one with {@link #ringPaxos}, {@link #ratis}, {@link #pbft} or {@link #of}, then the {@code with...}
 * methods. Immutable; any thread.
 *
 * @param ordering           the ordering protocol
 * @param acceptors          Ring Paxos acceptors
 * @param replicas           replicas (Ratis peers, PBFT replicas)
 * @param settings           what every process must agree on
 * @param hosts              the addresses the nodes bind, round-robin in node order ({@link ClusterLayout})
 * @param clientHosts        Ring Paxos: the machines of load processes, where the proposer slots go round-robin;
 *                           null for the first of {@code hosts}
 * @param pillars            PBFT: COP pillars per replica
 * @param rotation           PBFT: leader rotation
 * @param checkpointInterval PBFT: delivered instances between checkpoints
 * @param byzantine          PBFT, testing only: replicas Byzantine on purpose, by node name (empty for a correct cluster)
 * @param leaderSelection    PBFT: which replicas may lead
 * @param dormantByzantine   PBFT, testing only: those of {@code byzantine} that run correctly until cued
 *                           ({@link ClusterLauncher#cueByzantine})
 */
public record ClusterSpec(OrderingProtocol ordering, int acceptors, int replicas, ClusterSettings settings,
                          List<String> hosts, List<String> clientHosts, int pillars, LeaderRotation rotation,
                          int checkpointInterval, Map<String, ByzantineMode> byzantine, LeaderSelection leaderSelection,
                          Set<String> dormantByzantine) {

    /** Checks that the protocol runs as a cluster of processes, and copies the lists. */
    public ClusterSpec {
        OrderingBinding.of(ordering);
        Objects.requireNonNull(settings, "settings");
        hosts = List.copyOf(hosts);
        clientHosts = clientHosts == null ? null : List.copyOf(clientHosts);
        Objects.requireNonNull(rotation, "rotation");
        byzantine = Map.copyOf(byzantine);
        Objects.requireNonNull(leaderSelection, "leaderSelection");
        dormantByzantine = Set.copyOf(dormantByzantine);
    }

    /**
     * A cluster of {@code protocol} with {@code replicas} replicas on this machine (3 acceptors for Ring Paxos; for
     * PBFT 2 pillars, rotating leaders, checkpoints every {@value PbftClusterSettings#DEFAULT_CHECKPOINT_INTERVAL}
     * instances, no Byzantine replica).
     */
    public static ClusterSpec of(OrderingProtocol protocol, int replicas, ClusterSettings settings) {
        return new ClusterSpec(protocol, 3, replicas, settings, ClusterLauncher.LOCAL, null, 2, LeaderRotation.ROTATING,
                PbftClusterSettings.DEFAULT_CHECKPOINT_INTERVAL, Map.of(), LeaderSelection.BLACKLIST, Set.of());
    }

    /** A Ring Paxos cluster: {@code acceptors} acceptors (2f+1 tolerate f crashes) and {@code replicas} replicas. */
    public static ClusterSpec ringPaxos(int acceptors, int replicas, ClusterSettings settings) {
        return of(OrderingProtocol.RING_PAXOS, replicas, settings).withAcceptors(acceptors);
    }

    /** An Apache Ratis cluster of {@code replicas} peers, each a Raft server with psmr executing its log. */
    public static ClusterSpec ratis(int replicas, ClusterSettings settings) {
        return of(OrderingProtocol.RATIS, replicas, settings);
    }

    /** A PBFT cluster of {@code replicas} (3f+1) replicas of {@code pillars} pillars each. */
    public static ClusterSpec pbft(int replicas, int pillars, LeaderRotation rotation, ClusterSettings settings) {
        return of(OrderingProtocol.PBFT, replicas, settings).withPillars(pillars).withRotation(rotation);
    }

    /** This spec with {@code n} Ring Paxos acceptors. */
    public ClusterSpec withAcceptors(int n) {
        return new ClusterSpec(ordering, n, replicas, settings, hosts, clientHosts, pillars, rotation, checkpointInterval,
                byzantine, leaderSelection, dormantByzantine);
    }

    /** This spec with the nodes round-robin on {@code newHosts}. */
    public ClusterSpec withHosts(List<String> newHosts) {
        return new ClusterSpec(ordering, acceptors, replicas, settings, newHosts, clientHosts, pillars, rotation,
                checkpointInterval, byzantine, leaderSelection, dormantByzantine);
    }

    /** This spec with Ring Paxos' proposer slots round-robin on {@code newClientHosts} (null: the first host). */
    public ClusterSpec withClientHosts(List<String> newClientHosts) {
        return new ClusterSpec(ordering, acceptors, replicas, settings, hosts, newClientHosts, pillars, rotation,
                checkpointInterval, byzantine, leaderSelection, dormantByzantine);
    }

    /** This spec with {@code n} PBFT pillars per replica. */
    public ClusterSpec withPillars(int n) {
        return new ClusterSpec(ordering, acceptors, replicas, settings, hosts, clientHosts, n, rotation, checkpointInterval,
                byzantine, leaderSelection, dormantByzantine);
    }

    /** This spec with PBFT leaders rotating as {@code newRotation} says. */
    public ClusterSpec withRotation(LeaderRotation newRotation) {
        return new ClusterSpec(ordering, acceptors, replicas, settings, hosts, clientHosts, pillars, newRotation,
                checkpointInterval, byzantine, leaderSelection, dormantByzantine);
    }

    /** This spec with a PBFT checkpoint every {@code instances} delivered instances. */
    public ClusterSpec withCheckpointInterval(int instances) {
        return new ClusterSpec(ordering, acceptors, replicas, settings, hosts, clientHosts, pillars, rotation, instances,
                byzantine, leaderSelection, dormantByzantine);
    }

    /**
     * This spec with the PBFT replicas of {@code modes} (node name to mode, at most f) Byzantine on purpose: <b>a
     * testing and demonstration tool</b>, recorded in {@code cluster.json} so that a restart keeps them.
     */
    public ClusterSpec withByzantine(Map<String, ByzantineMode> modes) {
        return new ClusterSpec(ordering, acceptors, replicas, settings, hosts, clientHosts, pillars, rotation,
                checkpointInterval, modes, leaderSelection, Set.of());
    }

    /**
     * As {@link #withByzantine}, but the replicas run as correct ones until {@link ClusterLauncher#cueByzantine} cues
     * each: <b>testing only</b>, for a benchmark that turns a warm replica Byzantine at one moment.
     */
    public ClusterSpec withDormantByzantine(Map<String, ByzantineMode> modes) {
        return new ClusterSpec(ordering, acceptors, replicas, settings, hosts, clientHosts, pillars, rotation,
                checkpointInterval, modes, leaderSelection, modes.keySet());
    }

    /** This spec with PBFT leaders chosen as {@code selection} says. */
    public ClusterSpec withLeaderSelection(LeaderSelection selection) {
        return new ClusterSpec(ordering, acceptors, replicas, settings, hosts, clientHosts, pillars, rotation,
                checkpointInterval, byzantine, selection, dormantByzantine);
    }

    /** The binding of this spec's protocol. */
    public OrderingBinding binding() {
        return OrderingBinding.of(ordering);
    }

    /** The machines of load processes: {@link #clientHosts()}, or the first host. */
    public List<String> clientHostsOrFirst() {
        return clientHosts != null ? clientHosts : hosts.subList(0, 1);
    }

    /** How many ports {@link #layout} takes. */
    public int portCount() {
        return binding().portCount(this);
    }

    /** The cluster this spec describes, its ports from {@code ports} ({@link OrderingBinding#layout}). */
    public ClusterDescriptor layout(IntSupplier ports) {
        return binding().layout(this, ports);
    }
}
