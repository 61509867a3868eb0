package io.psmr.kvstore.pbft;

import static io.psmr.kvstore.cluster.ClusterDescriptor.check;

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
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.pbft.keys.PbftKeyFiles;
import io.psmr.ordering.pbft.net.PbftProposerClient;
import io.psmr.ordering.transport.LinkSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * PBFT as a cluster of processes: {@code 3f + 1} replicas {@code replica-1..} (PBFT replica id = replica id − 1), each
 * a {@link PbftReplicaRuntime} with a proposal port (its node port), a reply port, a checkpoint port and one port per
 * COP pillar ({@code pbft.pillarPorts}); no acceptors or proposer slots. The replicas sign with pair keys in
 * {@code DIR/keys} ({@link PbftKeyFiles}). The primary of pillar 0 leads.
 *
 * <p>Stateless; any thread.
 */
public final class PbftBinding implements OrderingBinding {

    /** The most replicas a PBFT cluster has. */
    static final int MAX_PBFT_REPLICAS = 64;

    @Override
    public OrderingProtocol protocol() {
        return OrderingProtocol.PBFT;
    }

    @Override
    public Set<Setting> settings() {
        return EnumSet.of(Setting.PILLARS, Setting.LEADER_ROTATION, Setting.LEADER_SELECTION, Setting.BYZANTINE);
    }

    /** Replicas of a new cluster when none are asked for: 3f+1 with f = 1. */
    public static final int DEFAULT_REPLICAS = 4;

    @Override
    public int defaultReplicas() {
        return DEFAULT_REPLICAS;
    }

    @Override
    public Optional<String> replicaCountProblem(int replicas) {
        return replicas >= 4 && (replicas - 1) % 3 == 0 && replicas <= MAX_PBFT_REPLICAS ? Optional.empty()
                : Optional.of("of a pbft cluster must be 3f+1 (4, 7, 10, ... " + MAX_PBFT_REPLICAS + "), got " + replicas);
    }

    /**
     * Refuses a replica count other than {@code 3f + 1} with {@code f ≥ 1}, bad Byzantine modes and a bad checkpoint
     * interval.
     */
    @Override
    public void checkSpec(ClusterSpec spec) {
        int replicas = spec.replicas();
        if (replicas < 4 || (replicas - 1) % 3 != 0) {
            throw new IllegalArgumentException("a PBFT cluster has 3f+1 replicas (4, 7, 10, ...), got " + replicas);
        }
        int f = (replicas - 1) / 3;
        List<List<Integer>> placeholder = Collections.nCopies(replicas, Collections.nCopies(spec.pillars(), 1));
        new PbftClusterSettings(f, spec.pillars(), spec.rotation(), placeholder, spec.checkpointInterval(), spec.byzantine(),
                spec.leaderSelection(), spec.dormantByzantine());
    }

    @Override
    public int portCount(ClusterSpec spec) {
        return spec.replicas() * (3 + spec.pillars());
    }

    /** The replicas round-robin on the hosts, each with its port, reply port, checkpoint port and pillar ports. */
    @Override
    public ClusterDescriptor layout(ClusterSpec spec, IntSupplier ports) {
        int replicas = spec.replicas();
        int f = (replicas - 1) / 3;
        List<ClusterNode> nodes = new ArrayList<>();
        List<List<Integer>> pillarPorts = new ArrayList<>();
        for (int r = 1; r <= replicas; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, ClusterLayout.host(spec.hosts(), r - 1), r, r,
                    ports.getAsInt(), ports.getAsInt(), ports.getAsInt(), null, null));
            List<Integer> own = new ArrayList<>();
            for (int i = 0; i < spec.pillars(); i++) {
                own.add(ports.getAsInt());
            }
            pillarPorts.add(own);
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.PBFT, null, spec.settings(), nodes, List.of(),
                null, new PbftClusterSettings(f, spec.pillars(), spec.rotation(), pillarPorts, spec.checkpointInterval(),
                spec.byzantine(), spec.leaderSelection(), spec.dormantByzantine()));
    }

    @Override
    public void checkDescriptor(List<ClusterNode> nodes, List<ProposerSlot> proposers, String ratisGroup,
                                PbftClusterSettings pbft, Set<Integer> ports) {
        check(pbft != null, "no pbft settings in a pbft cluster");
        check(nodes.stream().noneMatch(n -> n.role() == NodeRole.ACCEPTOR), "a pbft cluster has no acceptors");
        check(proposers.isEmpty(), "a pbft cluster has no proposer slots");
        check(ratisGroup == null, "ratisGroup is set in a pbft cluster");
        check(nodes.size() == pbft.replicas(), "a pbft cluster of f = " + pbft.f() + " has " + pbft.replicas()
                + " replicas, not " + nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            check(nodes.get(i).replicaId() == i + 1, "pbft replica " + nodes.get(i).name() + " has replicaId "
                    + nodes.get(i).replicaId() + ", expected " + (i + 1) + " (replicas in id order from 1)");
        }
        for (List<Integer> replicaPorts : pbft.pillarPorts()) { // every pillar port differs from all other ports
            for (int port : replicaPorts) {
                check(ports.add(port), "port " + port + " appears twice");
            }
        }
    }

    @Override
    public boolean hasReplyPorts() {
        return true;
    }

    @Override
    public boolean hasKeys() {
        return true;
    }

    /** A new key generation ({@link PbftKeyFiles#generate}), owner-only. */
    @Override
    public String writeKeys(ClusterDirectory dir, ClusterDescriptor cluster, boolean replace) {
        try {
            return PbftKeyFiles.generate(dir.keysDir(), cluster.pbft().replicas(), cluster.pbft().pillars(),
                    new SecureRandom(), replace);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the PBFT keys into " + dir.keysDir() + ": " + e.getMessage(), e);
        }
    }

    /**
     * A {@link PbftReplicaRuntime}.
     *
     * @throws IllegalArgumentException if its key file is refused
     */
    @Override
    public NodeRuntime startRuntime(ClusterDirectory dir, ClusterDescriptor cluster, ClusterNode node) {
        return PbftReplicaRuntime.start(dir, cluster, node);
    }

    @Override
    public String metricsRole(ClusterNode node) {
        return "pbft-replica";
    }

    /** PBFT replicas keep their log in memory; a resumed cluster starts from checkpoints. */
    @Override
    public boolean losesUncheckpointedOnStop() {
        return true;
    }

    @Override
    public Optional<String> statusNote(ClusterDescriptor cluster, ClusterNode node) {
        return cluster.pbft().byzantineMode(node.name()).map(m -> node.name() + " is BYZANTINE on purpose: " + m.cliName()
                + " (" + m.description() + "; testing tool)");
    }

    /**
     * A {@link PbftProposerClient} of the replicas' proposal ports (entry replica by proxy id, moving on when it fails
     * or stays silent); replies come from the replicas' reply ports.
     */
    @Override
    public OrderingClient openClient(ClusterDescriptor cluster, ProposerSlot slot, long firstProposalSeq, long proxyId,
                                     KvLimits limits, int maxPending, LocalReplyRouter router, LinkSecurity security) {
        List<InetSocketAddress> entries = cluster.proposalAddresses();
        return PbftProposerClient.start(entries, (int) Math.floorMod(proxyId, (long) entries.size()),
                PbftProposerClient.Config.defaults(cluster.pbft().config().maxRequestBytes()).withSecurity(security));
    }

    /** f: a result is trusted once f+1 replicas answered it alike. */
    @Override
    public int byzantineReplicasTolerated(ClusterDescriptor cluster) {
        return cluster.pbft().f();
    }

    @Override
    public NodeRole leaderRole() {
        return NodeRole.REPLICA;
    }

    @Override
    public String leaderState() {
        return "primary";
    }

    @Override
    public String leaderTitle() {
        return "primary of pillar 0";
    }

    @Override
    public String leaderCandidate() {
        return "replica";
    }
}
