package io.psmr.proxy.cluster;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/**
 * One node of a process cluster, as {@code cluster.json} records it.
 *
 * @param name      unique name, such as {@code acceptor-0} or {@code replica-1}
 * @param role      what it runs
 * @param paxosId   its Ring Paxos node id (acceptor id, or the replica's learner id); for a Ratis
 *                  peer, its replica id (its Ratis peer id is {@code p<replicaId>})
 * @param replicaId the replica id in its replies (replicas), 0 for acceptors
 * @param port      the Ring Paxos port on the cluster's host
 * @param replyPort the port proxies connect to for replies (Ring Paxos replicas); 0 for acceptors and
 *                  for Ratis peers, whose replies travel back through Ratis
 * @param pid       the process id of its current incarnation, or null if it was never started or was stopped
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ClusterNode(String name, NodeRole role, int paxosId, int replicaId, int port, int replyPort, Long pid) {

    /** Checks the fields. */
    public ClusterNode {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(role, "role");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("node " + name + ": port must be 1..65535, got " + port);
        }
        if (replyPort < 0 || replyPort > 65535) {
            throw new IllegalArgumentException("node " + name + ": replyPort must be 0..65535, got " + replyPort);
        }
    }

    /** This node with another pid (null: not running). */
    public ClusterNode withPid(Long newPid) {
        return new ClusterNode(name, role, paxosId, replicaId, port, replyPort, newPid);
    }
}
