package io.psmr.kvstore.cluster;

import io.psmr.kvstore.pbft.PbftClusterSettings;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import io.psmr.ordering.ringpaxos.net.RingPaxosTransportConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;

/**
 * {@code DIR/cluster.json}: everything a process of a cluster needs to find the others. Written
 * by {@code ./psmr cluster start}, updated (pids) by {@code kill}, {@code restart} and {@code stop},
 * read by every node process at its start and by {@code ./psmr load --cluster DIR}.
 *
 * <p>Ports are fixed for the life of the cluster: a restarted node binds the port it had, so the
 * others' static peer tables stay right. Ring Paxos ids: acceptors 0..a−1, replicas' learners
 * {@value #LEARNER_BASE}.., proposer slots {@value #PROPOSER_BASE}...
 *
 * <p>Immutable. Reading and writing go through {@link ClusterDirectory}, which serialises updates.
 *
 * <p>With {@code ordering} {@code ratis}, the nodes are Ratis peers only (replicas, each a Raft
 * server with psmr executing its log, on its Raft RPC port), there are no acceptors or proposer slots,
 * and {@code ratisGroup} names the Raft group.
 *
 * <p><b>Hosts.</b> Every node and proposer slot names its own host (format version {@value #VERSION}): the
 * address it binds and the others dial. A version-1 file named one top-level {@code host} for all; it is
 * still read, each node and slot taking that host, and is written back as version {@value #VERSION}.
 *
 * @param version   the file format: {@value #VERSION}, or 1 when read from an old file (normalised to {@value #VERSION})
 * @param ordering  the ordering layer, {@code ringpaxos}, {@code ratis} or {@code pbft}
 * @param host      a default host for the nodes and slots that name none (the one host of a version-1 file, or
 *                  what a Java caller passes); null once built, since every node and slot then has its own
 * @param settings  what every process must agree on
 * @param nodes     acceptors, then replicas
 * @param proposers the proposer slots load processes claim (Ring Paxos only)
 * @param ratisGroup the Raft group id, a UUID (Ratis only, else null)
 * @param pbft      the PBFT settings and pillar ports (PBFT only, else null). A PBFT replica's {@code port} is its
 *                  proposal port (proxies propose there), {@code replyPort} its reply port; its PBFT replica id is
 *                  {@code replicaId − 1}; there are no acceptors or proposer slots
 * @param tls       mutual TLS on every link, under the authority in {@code DIR/tls} ({@link ClusterTlsFiles}); null
 *                  for plain TCP
 */
public record ClusterDescriptor(int version, OrderingProtocol ordering,
                                @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                                String host, ClusterSettings settings,
                                List<ClusterNode> nodes, List<ProposerSlot> proposers, String ratisGroup,
                                PbftClusterSettings pbft,
                                @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                                ClusterTls tls) {

    /** A cluster over plain TCP (no tls setting). */
    public ClusterDescriptor(int version, OrderingProtocol ordering, String host, ClusterSettings settings,
                             List<ClusterNode> nodes, List<ProposerSlot> proposers, String ratisGroup,
                             PbftClusterSettings pbft) {
        this(version, ordering, host, settings, nodes, proposers, ratisGroup, pbft, null);
    }

    /** A Ring Paxos or Ratis cluster (no PBFT settings). */
    public ClusterDescriptor(int version, OrderingProtocol ordering, String host, ClusterSettings settings,
                             List<ClusterNode> nodes, List<ProposerSlot> proposers, String ratisGroup) {
        this(version, ordering, host, settings, nodes, proposers, ratisGroup, null);
    }

    /** The format version this code reads and writes. */
    public static final int VERSION = 2;
    /** The format with one top-level host for every node, still read. */
    public static final int VERSION_ONE_HOST = 1;
    /** The Ring Paxos id of the first replica's learner. */
    public static final int LEARNER_BASE = 100;
    /** The Ring Paxos id of the first proposer slot. */
    public static final int PROPOSER_BASE = 200;
    /** The file name inside the cluster directory. */
    public static final String FILE = "cluster.json";

    private static final ObjectMapper JSON = ClusterJson.MAPPER;

    /** Checks consistency: unique names, ids and ports, at least one acceptor and one replica. */
    @com.fasterxml.jackson.annotation.JsonCreator
    public ClusterDescriptor {
        if (version != VERSION && version != VERSION_ONE_HOST) {
            throw new IllegalArgumentException("cluster.json has format version " + version + "; this psmr reads versions "
                    + VERSION_ONE_HOST + " and " + VERSION);
        }
        if (version == VERSION_ONE_HOST && host == null) {
            throw new IllegalArgumentException("cluster.json: a version 1 file names one top-level host for every node, and this one has none");
        }
        if (host != null && host.isBlank()) {
            throw new IllegalArgumentException("cluster.json: host is empty");
        }
        if (ordering == null || OrderingBinding.find(ordering).isEmpty()) {
            throw new IllegalArgumentException("cluster.json: ordering must be ringpaxos, ratis or pbft, got "
                    + (ordering == null ? "nothing" : "'" + ordering.cliName() + "'"));
        }
        OrderingBinding binding = OrderingBinding.of(ordering);
        Objects.requireNonNull(settings, "settings");
        nodes = withHosts(Objects.requireNonNull(nodes, "nodes"), host);
        proposers = slotsWithHosts(Objects.requireNonNull(proposers, "proposers"), host);
        version = VERSION;
        host = null;
        Set<String> names = new HashSet<>();
        Set<Integer> ids = new HashSet<>();
        Set<Integer> ports = new HashSet<>();
        for (ClusterNode n : nodes) {
            require(names.add(n.name()), "node name " + n.name() + " appears twice");
            require(ids.add(n.paxosId()), "Ring Paxos id " + n.paxosId() + " appears twice");
            require(ports.add(n.port()), "port " + n.port() + " appears twice");
            if (n.role() == NodeRole.REPLICA && binding.hasReplyPorts()) {
                require(n.replyPort() > 0, "replica " + n.name() + " has no replyPort");
                require(ports.add(n.replyPort()), "port " + n.replyPort() + " appears twice");
                require(n.checkpointPort() == 0 || ports.add(n.checkpointPort()),
                        "port " + n.checkpointPort() + " appears twice");
            }
        }
        for (ProposerSlot p : proposers) {
            require(ids.add(p.paxosId()), "Ring Paxos id " + p.paxosId() + " appears twice");
            require(ports.add(p.port()), "port " + p.port() + " appears twice");
        }
        require(nodes.stream().anyMatch(n -> n.role() == NodeRole.REPLICA), "no replica");
        binding.checkDescriptor(nodes, proposers, ratisGroup, pbft, ports);
    }

    private static List<ClusterNode> withHosts(List<ClusterNode> nodes, String defaultHost) {
        List<ClusterNode> out = new ArrayList<>(nodes.size());
        for (ClusterNode n : nodes) {
            require(n.host() != null || defaultHost != null, "node " + n.name() + " names no host");
            out.add(n.host() != null ? n : n.onHost(defaultHost));
        }
        return List.copyOf(out);
    }

    private static List<ProposerSlot> slotsWithHosts(List<ProposerSlot> slots, String defaultHost) {
        List<ProposerSlot> out = new ArrayList<>(slots.size());
        for (ProposerSlot p : slots) {
            require(p.host() != null || defaultHost != null, "proposer slot " + p.paxosId() + " names no host");
            out.add(p.host() != null ? p : p.onHost(defaultHost));
        }
        return List.copyOf(out);
    }

    private static void require(boolean ok, String problem) {
        check(ok, problem);
    }

    /**
     * Refuses a {@code cluster.json} that breaks a rule: what {@link OrderingBinding#checkDescriptor} calls.
     *
     * @throws IllegalArgumentException with {@code problem}, prefixed {@code cluster.json: }, unless {@code ok}
     */
    public static void check(boolean ok, String problem) {
        if (!ok) {
            throw new IllegalArgumentException("cluster.json: " + problem);
        }
    }

    /** The node called {@code name}. */
    public Optional<ClusterNode> node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst();
    }

    /** The acceptors, by id. */
    public List<ClusterNode> acceptors() {
        return nodes.stream().filter(n -> n.role() == NodeRole.ACCEPTOR).toList();
    }

    /** The replicas, by replica id. */
    public List<ClusterNode> replicas() {
        return nodes.stream().filter(n -> n.role() == NodeRole.REPLICA).toList();
    }

    /** This cluster with node {@code name} run by {@code process}, or stopped if it is null. */
    public ClusterDescriptor withProcess(String name, ProcessHandle process) {
        List<ClusterNode> updated = new ArrayList<>(nodes.size());
        for (ClusterNode n : nodes) {
            updated.add(!n.name().equals(name) ? n : process == null ? n.stopped() : n.withProcess(process));
        }
        return new ClusterDescriptor(version, ordering, host, settings, updated, proposers, ratisGroup, pbft, tls);
    }

    /**
     * Testing only: this PBFT cluster with replica {@code name} Byzantine in {@code mode} from its next start,
     * or correct again if {@code mode} is empty.
     *
     * @throws IllegalStateException    if this is not a PBFT cluster
     * @throws IllegalArgumentException if it would make more than f replicas Byzantine, or names no replica
     */
    public ClusterDescriptor withByzantine(String name, Optional<io.psmr.ordering.pbft.byzantine.ByzantineMode> mode) {
        if (pbft == null) {
            throw new IllegalStateException("only a PBFT cluster has Byzantine replicas; this one is ordered by "
                    + ordering.cliName());
        }
        return new ClusterDescriptor(version, ordering, host, settings, nodes, proposers, ratisGroup,
                pbft.withByzantine(name, mode), tls);
    }

    /** Testing only: this cluster with dormant Byzantine PBFT replica {@code name} recorded awake. */
    public ClusterDescriptor withByzantineAwake(String name) {
        if (pbft == null) {
            throw new IllegalStateException("only a PBFT cluster has Byzantine replicas; this one is ordered by "
                    + ordering.cliName());
        }
        return new ClusterDescriptor(version, ordering, host, settings, nodes, proposers, ratisGroup, pbft.awake(name),
                tls);
    }

    /** This cluster with mutual TLS under {@code newTls} (null: plain TCP). */
    public ClusterDescriptor withTls(ClusterTls newTls) {
        return new ClusterDescriptor(version, ordering, host, settings, nodes, proposers, ratisGroup, pbft, newTls);
    }

    /** The Ring Paxos membership: acceptors, learners (one per replica), proposer slots; default timeouts. */
    public RingPaxosConfig ringPaxosConfig() {
        return RingPaxosConfig.of(acceptors().stream().map(ClusterNode::paxosId).toList(),
                replicas().stream().map(ClusterNode::paxosId).toList(),
                proposers.stream().map(ProposerSlot::paxosId).toList());
    }

    /** The binding of this cluster's ordering protocol: its layout, runtimes and leadership. */
    @JsonIgnore
    public OrderingBinding binding() {
        return OrderingBinding.of(ordering);
    }

    /** Where PBFT replica {@code r}'s pillar {@code p} listens (any thread). */
    public InetSocketAddress pillarAddress(int r, int p) {
        return replicas().get(r).address(pbft.pillarPorts().get(r).get(p));
    }

    /** Every PBFT replica's proposal port, in PBFT replica id order. */
    public List<InetSocketAddress> proposalAddresses() {
        return replicas().stream().map(n -> n.address(n.port())).toList();
    }

    /** The Raft group of a Ratis cluster: peer {@code p<replicaId>} of each replica, on its port. */
    public RaftGroup raftGroup() {
        if (ratisGroup == null) { // set in, and only in, a Ratis cluster
            throw new IllegalStateException("a " + ordering.cliName() + " cluster has no Raft group");
        }
        List<RaftPeer> peers = replicas().stream().map(n -> RaftPeer.newBuilder().setId(raftPeerId(n))
                .setAddress(hostPort(n.host(), n.port())).build()).toList();
        return RaftGroup.valueOf(RaftGroupId.valueOf(UUID.fromString(ratisGroup)), peers);
    }

    /**
     * {@code host:port} as written in cluster.json ({@code [v6]:port} for an IPv6 literal): Ratis would otherwise turn an
     * {@link InetSocketAddress} into a reverse-looked-up name, which other machines may resolve differently.
     */
    private static String hostPort(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** The Ratis peer id of replica {@code node}. */
    public static RaftPeerId raftPeerId(ClusterNode node) {
        return RaftPeerId.valueOf("p" + node.replicaId());
    }

    /** Every node's transport settings: the defaults with the cluster's tick. */
    public RingPaxosTransportConfig transportConfig() {
        return RingPaxosTransportConfig.defaults().withTickInterval(settings.tick());
    }

    /** Every Ring Paxos node's address by id (acceptors, learners, proposer slots). */
    public Map<Integer, InetSocketAddress> peers() {
        Map<Integer, InetSocketAddress> peers = new LinkedHashMap<>();
        for (ClusterNode n : nodes) {
            peers.put(n.paxosId(), n.address(n.port()));
        }
        for (ProposerSlot p : proposers) {
            peers.put(p.paxosId(), new InetSocketAddress(p.host(), p.port()));
        }
        return peers;
    }

    /** Where each replica serves replies, by the replica id its replies carry. */
    public Map<Integer, InetSocketAddress> replyAddresses() {
        Map<Integer, InetSocketAddress> byId = new LinkedHashMap<>();
        for (ClusterNode n : replicas()) {
            byId.put(n.replicaId(), n.address(n.replyPort()));
        }
        return byId;
    }

    /**
     * Where the other Ring Paxos replicas serve their checkpoints, for {@code replica}'s state transfer;
     * replicas without a checkpoint port (a cluster.json from before checkpoints) are left out.
     */
    public List<InetSocketAddress> checkpointPeers(ClusterNode replica) {
        return replicas().stream().filter(n -> !n.name().equals(replica.name()) && n.checkpointPort() > 0)
                .map(n -> n.address(n.checkpointPort())).toList();
    }

    /** This descriptor as JSON. */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write cluster.json", e);
        }
    }

    /**
     * Reads {@code dir/cluster.json}.
     *
     * @throws IllegalArgumentException naming the file and the problem if it is missing or invalid
     */
    public static ClusterDescriptor read(Path dir) {
        Path file = dir.resolve(FILE);
        try {
            return JSON.readValue(Files.readString(file), ClusterDescriptor.class);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no cluster in " + dir + ": " + file
                    + " does not exist (run ./psmr cluster start, or ./psmr cluster init and copy the file here, first)");
        } catch (JsonProcessingException e) {
            Throwable cause = e.getCause() instanceof IllegalArgumentException iae ? iae : e;
            throw new IllegalArgumentException(file + " is not a valid cluster file: " + cause.getMessage(), e);
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(file + " is not a valid cluster file: it is not UTF-8 text", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** Writes {@code dir/cluster.json} atomically (a temporary file renamed over it). */
    public void write(Path dir) {
        Path file = dir.resolve(FILE);
        Path tmp = dir.resolve(FILE + ".tmp");
        try {
            Files.writeString(tmp, toJson() + "\n");
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
