package io.psmr.kvstore.ringpaxos;

import static io.psmr.kvstore.cluster.ClusterDescriptor.check;

import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterLayout;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.ClusterTlsFiles;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.kvstore.cluster.OrderingBinding;
import io.psmr.kvstore.cluster.ProposerSlot;
import io.psmr.kvstore.pbft.PbftClusterSettings;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.ringpaxos.net.AcceptorRuntime;
import io.psmr.ordering.ringpaxos.net.RingPaxosProposerClient;
import io.psmr.ordering.transport.LinkSecurity;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * Ring Paxos as a cluster of processes: acceptors {@code acceptor-0..} (Ring Paxos ids 0..a−1), replicas
 * {@code replica-1..} (each a learner, ids from {@value ClusterDescriptor#LEARNER_BASE}, with a reply port and a
 * checkpoint port), and {@value ClusterLauncher#PROPOSER_SLOTS} proposer slots for load processes (ids from
 * {@value ClusterDescriptor#PROPOSER_BASE}). The acceptor that coordinates leads.
 *
 * <p>Stateless; any thread.
 */
public final class RingPaxosBinding implements OrderingBinding {

    @Override
    public OrderingProtocol protocol() {
        return OrderingProtocol.RING_PAXOS;
    }

    @Override
    public Set<Setting> settings() {
        return EnumSet.of(Setting.ACCEPTORS, Setting.TICK, Setting.CLIENT_HOSTS);
    }

    @Override
    public int portCount(ClusterSpec spec) {
        return spec.acceptors() + 3 * spec.replicas() + ClusterLauncher.PROPOSER_SLOTS;
    }

    /** Acceptors and replicas round-robin on the hosts, proposer slots on the client hosts. */
    @Override
    public ClusterDescriptor layout(ClusterSpec spec, IntSupplier ports) {
        List<String> hosts = spec.hosts();
        List<ClusterNode> nodes = new ArrayList<>();
        for (int i = 0; i < spec.acceptors(); i++) {
            nodes.add(new ClusterNode("acceptor-" + i, NodeRole.ACCEPTOR, ClusterLayout.host(hosts, i), i, 0, ports.getAsInt(),
                    0, 0, null, null));
        }
        for (int r = 1; r <= spec.replicas(); r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, ClusterLayout.host(hosts, r - 1),
                    ClusterDescriptor.LEARNER_BASE + r - 1, r, ports.getAsInt(), ports.getAsInt(), ports.getAsInt(), null, null));
        }
        List<ProposerSlot> slots = new ArrayList<>();
        for (int i = 0; i < ClusterLauncher.PROPOSER_SLOTS; i++) {
            slots.add(new ProposerSlot(ClusterDescriptor.PROPOSER_BASE + i, ports.getAsInt(),
                    ClusterLayout.host(spec.clientHostsOrFirst(), i)));
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RING_PAXOS, null, spec.settings(), nodes,
                slots, null);
    }

    @Override
    public void checkDescriptor(List<ClusterNode> nodes, List<ProposerSlot> proposers, String ratisGroup,
                                PbftClusterSettings pbft, Set<Integer> ports) {
        check(pbft == null, "pbft settings in a ringpaxos cluster");
        check(nodes.stream().anyMatch(n -> n.role() == NodeRole.ACCEPTOR), "no acceptor");
        check(!proposers.isEmpty(), "no proposer slot");
        check(ratisGroup == null, "ratisGroup is set in a ringpaxos cluster");
    }

    @Override
    public boolean hasReplyPorts() {
        return true;
    }

    /** An acceptor's {@link AcceptorRuntime}, or a replica's {@link RingPaxosReplicaRuntime}. */
    @Override
    public NodeRuntime startRuntime(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        return switch (node.role()) {
            case ACCEPTOR -> new AcceptorRuntime(node.name(), cluster.ringPaxosConfig(), node.paxosId(),
                    cluster.transportConfig().withSecurity(ClusterTlsFiles.forNode(dir.path(), cluster, node)),
                    node.address(node.port()), cluster.peers(), dir.dataDir(node.name()));
            case REPLICA -> RingPaxosReplicaRuntime.start(dir, cluster, node);
        };
    }

    @Override
    public String metricsRole(ClusterNode node) {
        return node.role() == NodeRole.ACCEPTOR ? "acceptor" : "replica";
    }

    /** A replica of a cluster.json from before checkpoints has no checkpoint port to catch up from. */
    @Override
    public Optional<String> restartRefusal(ClusterDescriptor cluster, ClusterNode node) {
        if (node.role() == NodeRole.REPLICA && node.checkpointPort() == 0) {
            return Optional.of("cannot restart replica " + node.name() + ": this cluster.json predates checkpoints, so "
                    + "the replica has no checkpoint port to serve or fetch state from; start a new cluster");
        }
        return Optional.empty();
    }

    /** A proposer bound to {@code slot}; replies come from the replicas' reply ports. */
    @Override
    public OrderingClient openClient(ClusterDescriptor cluster, ProposerSlot slot, long firstProposalSeq, long proxyId,
                                     KvLimits limits, int maxPending, LocalReplyRouter router, LinkSecurity security) {
        return RingPaxosProposerClient.start(cluster.ringPaxosConfig(), slot.paxosId(), firstProposalSeq,
                cluster.transportConfig().withSecurity(security), new InetSocketAddress(slot.host(), slot.port()), cluster.peers(), maxPending);
    }

    @Override
    public NodeRole leaderRole() {
        return NodeRole.ACCEPTOR;
    }

    @Override
    public String leaderState() {
        return "coord";
    }

    @Override
    public String leaderTitle() {
        return "coordinator";
    }

    @Override
    public String leaderCandidate() {
        return "acceptor";
    }
}
