package io.psmr.kvstore.ratis;

import static io.psmr.kvstore.cluster.ClusterDescriptor.check;

import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvDecodeException;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterLayout;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.kvstore.cluster.OrderingBinding;
import io.psmr.kvstore.cluster.ProposerSlot;
import io.psmr.kvstore.pbft.PbftClusterSettings;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.ratis.RatisOrderingClient;
import io.psmr.ordering.transport.LinkSecurity;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Ratis as a cluster of processes: peers {@code replica-1..}, each a Raft server with psmr executing its log
 * ({@link RatisPeerRuntime}) on its one port, in a new Raft group ({@code ratisGroup}); no acceptors, proposer slots or
 * reply ports (replies come back as Raft replies). The Raft leader leads.
 *
 * <p>Stateless; any thread.
 */
public final class RatisBinding implements OrderingBinding {

    private static final Logger LOG = LoggerFactory.getLogger(RatisBinding.class);

    @Override
    public OrderingProtocol protocol() {
        return OrderingProtocol.RATIS;
    }

    @Override
    public Set<Setting> settings() {
        return EnumSet.noneOf(Setting.class);
    }

    @Override
    public int portCount(ClusterSpec spec) {
        return spec.replicas();
    }

    /** The peers round-robin on the hosts, in a new Raft group. */
    @Override
    public ClusterDescriptor layout(ClusterSpec spec, IntSupplier ports) {
        List<ClusterNode> nodes = new ArrayList<>();
        for (int r = 1; r <= spec.replicas(); r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, ClusterLayout.host(spec.hosts(), r - 1), r, r,
                    ports.getAsInt(), 0, 0, null, null));
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RATIS, null, spec.settings(), nodes,
                List.of(), UUID.randomUUID().toString());
    }

    @Override
    public void checkDescriptor(List<ClusterNode> nodes, List<ProposerSlot> proposers, String ratisGroup,
                                PbftClusterSettings pbft, Set<Integer> ports) {
        check(pbft == null, "pbft settings in a ratis cluster");
        check(nodes.stream().noneMatch(n -> n.role() == NodeRole.ACCEPTOR), "a ratis cluster has no acceptors");
        check(proposers.isEmpty(), "a ratis cluster has no proposer slots");
        check(ratisGroup != null, "no ratisGroup in a ratis cluster");
        try {
            UUID.fromString(ratisGroup);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cluster.json: ratisGroup must be a UUID, got '" + ratisGroup + "'");
        }
    }

    @Override
    public boolean hasReplyPorts() {
        return false;
    }

    @Override
    public NodeRuntime startRuntime(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        return new RatisPeerRuntime(dir, cluster, node);
    }

    @Override
    public String metricsRole(ClusterNode node) {
        return "ratis-peer";
    }

    /** A Raft client of the group; the leader's replies come back as Raft replies, routed to {@code router}. */
    @Override
    public OrderingClient openClient(ClusterDescriptor cluster, ProposerSlot slot, long firstProposalSeq, long proxyId,
                                     KvLimits limits, int maxPending, LocalReplyRouter router, LinkSecurity security) {
        return new RatisOrderingClient(RatisPeer.newClient(cluster.raftGroup(), maxPending, security),
                bytes -> routeReplies(bytes, router), maxPending);
    }

    private static void routeReplies(byte[] bytes, LocalReplyRouter router) {
        try {
            KvCodec.decodeReplies(bytes).forEach(router::route);
        } catch (KvDecodeException e) {
            LOG.error("a Ratis reply is not a list of key-value replies: {}", e.getMessage());
        }
    }

    /** Peers of a new cluster when none are asked for: 2f+1 with f = 1, the fewest that survive a crash. */
    public static final int DEFAULT_PEERS = 3;

    @Override
    public int defaultReplicas() {
        return DEFAULT_PEERS;
    }

    @Override
    public NodeRole leaderRole() {
        return NodeRole.REPLICA;
    }

    @Override
    public String leaderState() {
        return "leader";
    }

    @Override
    public String leaderTitle() {
        return "leader";
    }

    @Override
    public String leaderCandidate() {
        return "peer";
    }
}
