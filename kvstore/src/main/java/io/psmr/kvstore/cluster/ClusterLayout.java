package io.psmr.kvstore.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
 * <p>Each protocol's {@link OrderingBinding#layout} lays its nodes out by these rules.
 *
 * <p>Stateless; any thread.
 */
public final class ClusterLayout {

    private ClusterLayout() {
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

    /** The host of the {@code i}-th node of a kind (from 0), round-robin on {@code hosts}. */
    public static String host(List<String> hosts, int i) {
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
