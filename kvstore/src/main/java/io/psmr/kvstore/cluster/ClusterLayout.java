package io.psmr.kvstore.cluster;

import io.psmr.kvstore.pbft.PbftClusterSettings;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntSupplier;

/**
 * Where the nodes of a new cluster live: which host each node and proposer slot is on, and its ports. The one
 * place both {@code cluster start} (every host on this machine, free ports) and {@code cluster init} (hosts of
 * other machines, ports from a base) lay a cluster out, so the two agree.
 *
 * <p><b>Hosts, round-robin in node order.</b> With hosts h0..h(k−1): acceptor i is on h(i mod k), replica r (a
 * Ring Paxos replica, a Ratis peer or a PBFT replica, r from 1) on h((r−1) mod k), proposer slot i on client host
 * c(i mod m). So with three hosts, three acceptors and three replicas, machine j runs acceptor-j and replica-(j+1).
 *
 * <p><b>Ports</b>, taken from {@code ports} in this order, each distinct: acceptors; each replica's port, reply
 * port and checkpoint port (a PBFT replica's then its pillar ports; a Ratis peer only its port); proposer slots.
 *
 * <p>Stateless; any thread.
 */
public final class ClusterLayout {

    private ClusterLayout() {
    }

    /** How many ports a cluster of this shape takes from the port supplier. */
    public static int portCount(OrderingProtocol ordering, int acceptors, int replicas, int pillars, int proposerSlots) {
        return switch (ordering) {
            case RATIS -> replicas;
            case PBFT -> replicas * (3 + pillars);
            default -> acceptors + 3 * replicas + proposerSlots;
        };
    }

    /** A Ring Paxos cluster: acceptors and replicas round-robin on {@code hosts}, proposer slots on {@code clientHosts}. */
    public static ClusterDescriptor ringPaxos(int acceptors, int replicas, int proposerSlots, ClusterSettings settings,
                                              List<String> hosts, List<String> clientHosts, IntSupplier ports) {
        List<ClusterNode> nodes = new ArrayList<>();
        for (int i = 0; i < acceptors; i++) {
            nodes.add(new ClusterNode("acceptor-" + i, NodeRole.ACCEPTOR, on(hosts, i), i, 0, ports.getAsInt(), 0, 0, null, null));
        }
        for (int r = 1; r <= replicas; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, on(hosts, r - 1), ClusterDescriptor.LEARNER_BASE + r - 1,
                    r, ports.getAsInt(), ports.getAsInt(), ports.getAsInt(), null, null));
        }
        List<ProposerSlot> slots = new ArrayList<>();
        for (int i = 0; i < proposerSlots; i++) {
            slots.add(new ProposerSlot(ClusterDescriptor.PROPOSER_BASE + i, ports.getAsInt(), on(clientHosts, i)));
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RING_PAXOS, null, settings, nodes, slots, null);
    }

    /** An Apache Ratis cluster of {@code replicas} peers, round-robin on {@code hosts}, in a new Raft group. */
    public static ClusterDescriptor ratis(int replicas, ClusterSettings settings, List<String> hosts, IntSupplier ports) {
        List<ClusterNode> nodes = new ArrayList<>();
        for (int r = 1; r <= replicas; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, on(hosts, r - 1), r, r, ports.getAsInt(), 0, 0, null, null));
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RATIS, null, settings, nodes, List.of(),
                UUID.randomUUID().toString());
    }

    /** A PBFT cluster of {@code replicas} (3f+1) replicas round-robin on {@code hosts}, each with its pillar ports. */
    public static ClusterDescriptor pbft(int replicas, int pillars, LeaderRotation rotation, ClusterSettings settings,
                                         int checkpointInterval, Map<String, ByzantineMode> byzantine, List<String> hosts,
                                         IntSupplier ports) {
        int f = (replicas - 1) / 3;
        List<ClusterNode> nodes = new ArrayList<>();
        List<List<Integer>> pillarPorts = new ArrayList<>();
        for (int r = 1; r <= replicas; r++) {
            nodes.add(new ClusterNode("replica-" + r, NodeRole.REPLICA, on(hosts, r - 1), r, r, ports.getAsInt(), ports.getAsInt(),
                    ports.getAsInt(), null, null));
            List<Integer> own = new ArrayList<>();
            for (int i = 0; i < pillars; i++) {
                own.add(ports.getAsInt());
            }
            pillarPorts.add(own);
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.PBFT, null, settings, nodes, List.of(), null,
                new PbftClusterSettings(f, pillars, rotation, pillarPorts, checkpointInterval, byzantine));
    }

    /**
     * Whether {@code host} is an address of this machine: a loopback address (all of 127/8 on Linux), the wildcard,
     * or an interface's address. False for a host that does not resolve.
     */
    public static boolean isLocal(String host) {
        try {
            InetAddress a = InetAddress.getByName(host);
            return a.isLoopbackAddress() || a.isAnyLocalAddress() || java.net.NetworkInterface.getByInetAddress(a) != null;
        } catch (UnknownHostException | java.net.SocketException e) {
            return false;
        }
    }

    private static String on(List<String> hosts, int i) {
        return hosts.get(i % hosts.size());
    }

    /**
     * Checks a host list given as {@code option}: at least one, none empty, each resolves, and no two the same
     * address (nodes are spread over the list round-robin, so a repeated machine is a mistake, not a plan).
     *
     * @return the hosts as given
     * @throws IllegalArgumentException naming the option and the problem
     */
    public static List<String> checkHosts(String option, List<String> hosts) {
        if (hosts == null || hosts.isEmpty()) {
            throw new IllegalArgumentException(option + ": no host given");
        }
        Map<InetAddress, String> seen = new HashMap<>();
        for (String h : hosts) {
            if (h == null || h.isBlank()) {
                throw new IllegalArgumentException(option + ": an empty host name (in " + String.join(",", hosts) + ")");
            }
            if (!h.equals(h.strip()) || h.contains("/")) {
                throw new IllegalArgumentException(option + ": '" + h + "' is not a host name or address");
            }
            InetAddress a;
            try {
                a = InetAddress.getByName(h);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(option + ": host '" + h + "' does not resolve");
            }
            String before = seen.putIfAbsent(a, h);
            if (before != null) {
                throw new IllegalArgumentException(option + ": " + (before.equals(h) ? "'" + h + "' is given twice"
                        : "'" + before + "' and '" + h + "' are the same address " + a.getHostAddress())
                        + "; list each machine once (nodes are spread over the hosts round-robin)");
            }
            if (a.isAnyLocalAddress()) {
                throw new IllegalArgumentException(option + ": '" + h + "' is the wildcard address; give an address the other "
                        + "nodes can dial");
            }
        }
        return List.copyOf(hosts);
    }
}
