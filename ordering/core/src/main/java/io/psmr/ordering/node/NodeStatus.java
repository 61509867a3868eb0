package io.psmr.ordering.node;

/**
 * What a running node last said about itself. A process cluster keeps it in
 * {@code DIR/status/NAME.json} (the cluster directory reads and writes it); nodes rewrite it when
 * something changes and at least every {@link #HEARTBEAT_MILLIS} ms; readers trust it only while the
 * pid in it is alive.
 *
 * <p>Immutable; any thread.
 *
 * @param name        the node
 * @param pid         the process that wrote it
 * @param serving     the node has started and serves
 * @param coordinator an acceptor that coordinates (Phase 1 done); false for replicas
 * @param instance    a replica's last delivered instance (0 for acceptors)
 * @param digest      a replica's state digest at {@code instance}, taken when it was idle, or null while busy
 * @param failure     what stopped the node, or null
 * @param updated     when it was written, in epoch milliseconds (for display only)
 * @param detail      ordering-specific lines for {@code cluster status} (a PBFT replica's pillar views, stable
 *                    checkpoint and refusal counters), or null
 * @param metricsPort the port of the node's Prometheus endpoint ({@code GET /metrics} on the cluster's host),
 *                    or 0 if it serves none (a status file written before the field existed reads as 0)
 */
public record NodeStatus(String name, long pid, boolean serving, boolean coordinator, long instance, Long digest,
                         String failure, long updated, String detail, int metricsPort) {

    /** A status without a metrics endpoint. */
    public NodeStatus(String name, long pid, boolean serving, boolean coordinator, long instance, Long digest,
                      String failure, long updated, String detail) {
        this(name, pid, serving, coordinator, instance, digest, failure, updated, detail, 0);
    }

    /** This status, saying that the node serves metrics on {@code port} (0: none). */
    public NodeStatus withMetricsPort(int port) {
        return new NodeStatus(name, pid, serving, coordinator, instance, digest, failure, updated, detail, port);
    }

    /** A status without detail. */
    public NodeStatus(String name, long pid, boolean serving, boolean coordinator, long instance, Long digest,
                      String failure, long updated) {
        this(name, pid, serving, coordinator, instance, digest, failure, updated, null, 0);
    }

    /** How often a node rewrites its status even if nothing changed. */
    public static final long HEARTBEAT_MILLIS = 1000;

    /** Whether the process that wrote this is still alive. */
    public boolean alive() {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
