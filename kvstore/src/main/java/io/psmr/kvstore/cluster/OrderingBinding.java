package io.psmr.kvstore.cluster;

import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.pbft.PbftBinding;
import io.psmr.kvstore.pbft.PbftClusterSettings;
import io.psmr.kvstore.ratis.RatisBinding;
import io.psmr.kvstore.ringpaxos.RingPaxosBinding;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.transport.LinkSecurity;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * What one replicated ordering protocol decides about a cluster of processes: which nodes it has, their roles and
 * ports ({@link #layout}), its part of {@code cluster.json} ({@link #checkDescriptor}), the files its nodes need
 * besides {@code cluster.json} ({@link #writeKeys}), the runtime each node process runs ({@link #startRuntime}), and
 * which nodes lead and what the status calls them. {@link ClusterLauncher}, {@link NodeHost} and the command line
 * ask the binding of a cluster's protocol ({@link #of}, {@link ClusterDescriptor#binding()}) instead of switching on
 * the protocol themselves.
 *
 * <p>One implementation per protocol, in the protocol's package: {@link RingPaxosBinding}, {@link RatisBinding},
 * {@link PbftBinding}. {@link OrderingProtocol#LOCAL} has none: it runs in one JVM only.
 *
 * <p>Stateless and immutable; any thread.
 */
public interface OrderingBinding {

    /** The protocol this binds. */
    OrderingProtocol protocol();

    /**
     * The binding of {@code protocol}, if it runs as a cluster of processes.
     *
     * @return empty for {@link OrderingProtocol#LOCAL}
     */
    static Optional<OrderingBinding> find(OrderingProtocol protocol) {
        return Optional.ofNullable(BindingRegistry.BINDINGS.get(protocol));
    }

    /**
     * The binding of {@code protocol}.
     *
     * @throws IllegalArgumentException if it does not run as a cluster of processes
     */
    static OrderingBinding of(OrderingProtocol protocol) {
        return find(protocol).orElseThrow(() -> new IllegalArgumentException("a cluster of processes needs a replicated"
                + " ordering (ringpaxos, ratis or pbft), not " + (protocol == null ? "none" : protocol.cliName())));
    }

    /** The settings of a {@link ClusterSpec} that only some protocols take. */
    enum Setting {
        /** Ring Paxos acceptors ({@link ClusterSpec#acceptors()}). */
        ACCEPTORS,
        /** The Ring Paxos tick ({@link ClusterSettings#tickMillis()}). */
        TICK,
        /** The machines of load processes, where proposer slots go ({@link ClusterSpec#clientHosts()}). */
        CLIENT_HOSTS,
        /** COP pillars per PBFT replica ({@link ClusterSpec#pillars()}). */
        PILLARS,
        /** PBFT leader rotation ({@link ClusterSpec#rotation()}). */
        LEADER_ROTATION,
        /** PBFT leader selection ({@link ClusterSpec#leaderSelection()}). */
        LEADER_SELECTION,
        /** Replicas Byzantine on purpose ({@link ClusterSpec#byzantine()}), a testing tool. */
        BYZANTINE
    }

    /** The settings of {@link Setting} this protocol takes; it ignores the others in a {@link ClusterSpec}. */
    Set<Setting> settings();

    /** Whether this protocol takes {@code setting}. */
    default boolean takes(Setting setting) {
        return settings().contains(setting);
    }

    // ---------------------------------------------------------------- layout

    /** The most replicas a cluster of a crash-fault protocol has. */
    int MAX_REPLICAS = 16;

    /** The replicas a new cluster has when none are asked for: 2 unless the protocol says otherwise. */
    default int defaultReplicas() {
        return 2;
    }

    /**
     * Why a cluster of this protocol cannot have {@code replicas} replicas, as the end of a sentence that starts with
     * the option's name (such as {@code "must be from 1 to 16, got 20"}), or empty if it can: from 1 to
     * {@value #MAX_REPLICAS} unless the protocol says otherwise.
     */
    default Optional<String> replicaCountProblem(int replicas) {
        return replicas >= 1 && replicas <= MAX_REPLICAS ? Optional.empty()
                : Optional.of("must be from 1 to " + MAX_REPLICAS + ", got " + replicas);
    }

    /**
     * Refuses a spec this protocol cannot lay out, before any file is written.
     *
     * @throws IllegalArgumentException naming the problem
     */
    default void checkSpec(ClusterSpec spec) {
    }

    /** How many ports {@link #layout} takes from its port supplier for {@code spec}. */
    int portCount(ClusterSpec spec);

    /**
     * The cluster {@code spec} describes: its nodes round-robin on {@code spec.hosts()} ({@link ClusterLayout}), their
     * ports taken from {@code ports} in node order, no process running.
     */
    ClusterDescriptor layout(ClusterSpec spec, IntSupplier ports);

    /**
     * Checks this protocol's part of a {@code cluster.json}: which roles its nodes have, its own settings, and that
     * its ports (added to {@code ports}, which holds every other port) are distinct.
     *
     * @throws IllegalArgumentException naming the problem, prefixed {@code cluster.json: }
     */
    void checkDescriptor(List<ClusterNode> nodes, List<ProposerSlot> proposers, String ratisGroup,
                         PbftClusterSettings pbft, Set<Integer> ports);

    /** Whether replicas serve replies to load processes on a reply port of their own. */
    boolean hasReplyPorts();

    // ---------------------------------------------------------------- keys

    /** Whether the nodes sign with keys kept in {@code DIR/keys}, written by {@link #writeKeys}. */
    default boolean hasKeys() {
        return false;
    }

    /**
     * Writes a new key generation for {@code cluster} into {@code dir}'s {@link ClusterDirectory#keysDir()}.
     *
     * @param replace whether it replaces an existing one (the nodes stopped)
     * @return the generation's id
     * @throws java.io.UncheckedIOException if the key files cannot be written
     * @throws UnsupportedOperationException unless {@link #hasKeys()}
     */
    default String writeKeys(ClusterDirectory dir, ClusterDescriptor cluster, boolean replace) {
        throw new UnsupportedOperationException("a " + protocol().cliName() + " cluster has no keys");
    }

    // ---------------------------------------------------------------- processes

    /**
     * Starts the runtime of {@code node} in this process (the node process's thread, which then polls its status).
     *
     * @throws IllegalArgumentException if the node refuses to start (a key file it will not trust)
     */
    NodeRuntime startRuntime(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node);

    /** The metrics {@code role} tag of {@code node}: what it runs. */
    String metricsRole(ClusterNode node);

    /**
     * Why {@link ClusterLauncher#restart} would refuse {@code node}, or empty if it can bring it back.
     */
    default Optional<String> restartRefusal(ClusterDescriptor cluster, ClusterNode node) {
        return Optional.empty();
    }

    /**
     * Whether a stopped replica loses what it executed after its newest checkpoint (it keeps its log in memory, and a
     * resumed cluster starts from checkpoints).
     */
    default boolean losesUncheckpointedOnStop() {
        return false;
    }

    /** A line {@code cluster status} prints under {@code node}, if any (a replica Byzantine on purpose). */
    default Optional<String> statusNote(ClusterDescriptor cluster, ClusterNode node) {
        return Optional.empty();
    }

    // ---------------------------------------------------------------- clients

    /**
     * A new client, not yet started, through which a load process proposes to {@code cluster}'s ordering: a Ring
     * Paxos proposer on {@code slot}, numbering its proposals from {@code firstProposalSeq}; a PBFT client of the
     * replicas' proposal ports, entering at replica {@code proxyId} mod n; a Raft client, whose replies it decodes and
     * hands to {@code router}. Replies reach a client either there or, where {@link #hasReplyPorts()}, over
     * connections to the replicas' reply ports, which the caller opens.
     *
     * @param slot             the proposer slot the process holds, null in a cluster without slots
     * @param firstProposalSeq the first proposal sequence number of this process on {@code slot}
     * @param proxyId          the process's proxy id
     * @param limits           the largest keys and values its clients send
     * @param maxPending       proposals in flight at most
     * @param router           where replies that come back through the ordering go
     * @param security         how its connections are secured ({@link ClusterTlsFiles#forClient})
     */
    OrderingClient openClient(ClusterDescriptor cluster, ProposerSlot slot, long firstProposalSeq, long proxyId,
                              KvLimits limits, int maxPending, LocalReplyRouter router, LinkSecurity security);

    /**
     * How many replicas of {@code cluster} may lie (Byzantine faults): a client trusts a result once one more than
     * that answered it alike; 0 where the first reply is the result (crash faults only).
     */
    default int byzantineReplicasTolerated(ClusterDescriptor cluster) {
        return 0;
    }

    // ---------------------------------------------------------------- leadership

    /** The role of the nodes one of which leads: acceptors (one coordinates) or replicas. */
    NodeRole leaderRole();

    /** What {@code cluster status} calls the leading node's state: {@code coord}, {@code leader} or {@code primary}. */
    String leaderState();

    /**
     * What {@code cluster status} calls the leader, before its name: {@code coordinator}, {@code leader} or
     * {@code primary of pillar 0}.
     */
    String leaderTitle();

    /** What one of the nodes that may lead is called: {@code acceptor}, {@code peer} or {@code replica}. */
    String leaderCandidate();
}

/** The one place that maps protocols to their bindings. */
final class BindingRegistry {
    static final Map<OrderingProtocol, OrderingBinding> BINDINGS = new EnumMap<>(OrderingProtocol.class);

    static {
        for (OrderingBinding b : List.of(new RingPaxosBinding(), new RatisBinding(), new PbftBinding())) {
            BINDINGS.put(b.protocol(), b);
        }
    }

    private BindingRegistry() {
    }
}
