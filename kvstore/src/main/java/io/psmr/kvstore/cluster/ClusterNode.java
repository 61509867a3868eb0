package io.psmr.kvstore.cluster;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One node of a process cluster, as {@code cluster.json} records it.
 *
 * @param name      unique name, such as {@code acceptor-0} or {@code replica-1}
 * @param role      what it runs
 * @param host      the address it binds and the others dial (a name or an IP literal); null only when built
 *                  from a version-1 cluster.json or the Java constructor without a host, in which case
 *                  {@link ClusterDescriptor} fills in the file's one top-level host
 * @param paxosId   its Ring Paxos node id (acceptor id, or the replica's learner id); for a Ratis
 *                  peer, its replica id (its Ratis peer id is {@code p<replicaId>})
 * @param replicaId the replica id in its replies (replicas), 0 for acceptors
 * @param port      the Ring Paxos port (a Ratis peer's Raft RPC port, a PBFT replica's proposal port) on its host
 * @param replyPort the port proxies connect to for replies (Ring Paxos replicas); 0 for acceptors and
 *                  for Ratis peers, whose replies travel back through Ratis
 * @param checkpointPort the port a Ring Paxos replica serves its checkpoints on, for replicas that
 *                  catch up by state transfer; 0 for acceptors, for Ratis peers (Ratis installs its own
 *                  snapshots), and in a cluster.json written before checkpoints existed
 * @param pid       the process id of its current incarnation, or null if it was never started or was stopped
 * @param started   when that process started, in epoch milliseconds, or null: with the pid it
 *                  identifies the process, since a pid is reused once its process is gone
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ClusterNode(String name, NodeRole role, String host, int paxosId, int replicaId, int port, int replyPort,
                          int checkpointPort, Long pid, Long started) {

    /** How far apart two readings of one process's start time may be (the kernel counts in ticks). */
    private static final long START_TOLERANCE_MILLIS = 1000;

    /** A node without a host of its own: the descriptor gives it the cluster's default host. */
    public ClusterNode(String name, NodeRole role, int paxosId, int replicaId, int port, int replyPort,
                       int checkpointPort, Long pid, Long started) {
        this(name, role, null, paxosId, replicaId, port, replyPort, checkpointPort, pid, started);
    }

    /** Checks the fields. */
    @com.fasterxml.jackson.annotation.JsonCreator
    public ClusterNode {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(role, "role");
        // Names become file names (status/NAME.json, logs/NAME.log, data/NAME): nothing that leaves DIR.
        if (!name.matches("[a-z0-9][a-z0-9-]{0,31}")) {
            throw new IllegalArgumentException("node name must be 1 to 32 of a-z, 0-9 and '-', starting with a letter or digit, got '"
                    + name + "'");
        }
        if (host != null && host.isBlank()) {
            throw new IllegalArgumentException("node " + name + ": host is empty");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("node " + name + ": port must be 1..65535, got " + port);
        }
        if (replyPort < 0 || replyPort > 65535) {
            throw new IllegalArgumentException("node " + name + ": replyPort must be 0..65535, got " + replyPort);
        }
        if (checkpointPort < 0 || checkpointPort > 65535) {
            throw new IllegalArgumentException("node " + name + ": checkpointPort must be 0..65535, got " + checkpointPort);
        }
    }

    /** This node run by {@code process}. */
    public ClusterNode withProcess(ProcessHandle process) {
        return new ClusterNode(name, role, host, paxosId, replicaId, port, replyPort, checkpointPort, process.pid(),
                process.info().startInstant().map(Instant::toEpochMilli).orElse(null));
    }

    /** This node, not running. */
    public ClusterNode stopped() {
        return new ClusterNode(name, role, host, paxosId, replicaId, port, replyPort, checkpointPort, null, null);
    }

    /** This node on {@code newHost}. */
    public ClusterNode onHost(String newHost) {
        return new ClusterNode(name, role, newHost, paxosId, replicaId, port, replyPort, checkpointPort, pid, started);
    }

    /** Where it listens on {@code p}, one of its ports, on its host. */
    public java.net.InetSocketAddress address(int p) {
        return new java.net.InetSocketAddress(host, p);
    }

    /**
     * The node's process if it is alive: the recorded pid, alive, and started when recorded (not
     * another process that reuses the pid).
     */
    public Optional<ProcessHandle> liveProcess() {
        if (pid == null) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(ph -> started == null
                || ph.info().startInstant().map(i -> Math.abs(i.toEpochMilli() - started) <= START_TOLERANCE_MILLIS).orElse(true));
    }
}
