package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.ReconnectPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of one Ring Paxos node's Netty transport ({@link RingPaxosNode}) and runtime: frame and value limits, the
 * protocol tick, reconnection, and the bounds on memory. A message to a peer that cannot take it now is dropped (the
 * protocol retries), so there are no queues to size; PBFT's transport, which queues frames per peer and per pillar,
 * has its own settings ({@code io.psmr.ordering.pbft.net.PbftTransportConfig}).
 *
 * @param maxFrameBytes       largest frame body (without its 4-byte length prefix) sent or accepted; a longer
 *                            incoming frame closes the connection, a longer outgoing message is dropped with a log line
 * @param maxValueBytes       largest proposal payload
 * @param maxListLength       most votes in one Promise, or members in one ring
 * @param tickInterval        wall-clock length of one protocol tick
 * @param reconnectMin        first delay before reconnecting to a peer that is down
 * @param reconnectMax        the delay doubles up to this
 * @param connectTimeout      how long one connection attempt may take
 * @param writeHighWaterBytes bytes queued on one outgoing connection beyond which further messages to that peer are
 *                            dropped (the protocol retries), so a slow or stuck peer costs bounded memory
 * @param maxInboundConnections most incoming connections held at once; more are closed with a log line
 * @param security            plain TCP or mutual TLS on every connection; under TLS a connection's hello must name the
 *                            node (or proposer slot) whose certificate it presented
 */
public record RingPaxosTransportConfig(int maxFrameBytes, int maxValueBytes, int maxListLength, Duration tickInterval,
                              Duration reconnectMin, Duration reconnectMax, Duration connectTimeout,
                              int writeHighWaterBytes, int maxInboundConnections, LinkSecurity security) {

    /** Validates. */
    public RingPaxosTransportConfig {
        Objects.requireNonNull(tickInterval, "tickInterval");
        Objects.requireNonNull(reconnectMin, "reconnectMin");
        Objects.requireNonNull(reconnectMax, "reconnectMax");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(security, "security");
        if (maxFrameBytes < 64 || maxValueBytes < 0 || maxValueBytes > maxFrameBytes - 64 || maxListLength < 1) {
            throw new IllegalArgumentException("bad frame limits: maxFrameBytes " + maxFrameBytes + ", maxValueBytes "
                    + maxValueBytes + " (at most maxFrameBytes - 64), maxListLength " + maxListLength);
        }
        if (tickInterval.toMillis() < 1 || reconnectMin.toMillis() < 1 || reconnectMax.compareTo(reconnectMin) < 0
                || connectTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("tick interval, reconnect delays and connect timeout must be at least 1 ms,"
                    + " and reconnectMax at least reconnectMin");
        }
        if (writeHighWaterBytes < 1024 || maxInboundConnections < 1) {
            throw new IllegalArgumentException("writeHighWaterBytes must be at least 1024 and maxInboundConnections at least 1");
        }
    }

    /**
     * The defaults: frames up to 16 MiB, values up to 1 MiB, lists up to 4,096, a 10 ms tick, reconnects after
     * 50 ms doubling to 2 s, 1 s connect timeout, 4 MiB queued per peer, 256 inbound connections, plain TCP.
     */
    public static RingPaxosTransportConfig defaults() {
        return new RingPaxosTransportConfig(16 << 20, 1 << 20, 4096, Duration.ofMillis(10), Duration.ofMillis(50),
                Duration.ofSeconds(2), Duration.ofSeconds(1), 4 << 20, 256, LinkSecurity.plain());
    }

    /** {@link #reconnectMin()} and {@link #reconnectMax()} as the shared transport's policy. */
    public ReconnectPolicy reconnectPolicy() {
        return new ReconnectPolicy(reconnectMin, reconnectMax);
    }

    /** A copy with another tick interval. */
    public RingPaxosTransportConfig withTickInterval(Duration interval) {
        return new RingPaxosTransportConfig(maxFrameBytes, maxValueBytes, maxListLength, interval, reconnectMin, reconnectMax,
                connectTimeout, writeHighWaterBytes, maxInboundConnections, security);
    }

    /** A copy with other frame and value limits. */
    public RingPaxosTransportConfig withLimits(int newMaxFrameBytes, int newMaxValueBytes) {
        return new RingPaxosTransportConfig(newMaxFrameBytes, newMaxValueBytes, maxListLength, tickInterval, reconnectMin,
                reconnectMax, connectTimeout, writeHighWaterBytes, maxInboundConnections, security);
    }

    /** A copy whose connections {@code newSecurity} secures. */
    public RingPaxosTransportConfig withSecurity(LinkSecurity newSecurity) {
        return new RingPaxosTransportConfig(maxFrameBytes, maxValueBytes, maxListLength, tickInterval, reconnectMin,
                reconnectMax, connectTimeout, writeHighWaterBytes, maxInboundConnections, newSecurity);
    }
}
