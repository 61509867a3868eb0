package io.psmr.proxy.net;

import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.ReconnectPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link ReplyConnector}.
 *
 * @param maxFrameBytes    largest reply body accepted; a longer length prefix closes that connection (with a
 *                         WARN line) and it reconnects. Must be at least the replicas' largest reply
 *                         ({@code maxValueBytes} + 2 KiB is enough).
 * @param reconnectMin     first delay before connecting again to a replica that is down or closed the connection
 * @param reconnectMax     the delay doubles up to this; it falls back to {@code reconnectMin} after a welcome
 * @param connectTimeout   how long one connection attempt may take, and then how long the replica may take to
 *                         answer the hello with its welcome
 * @param security         plain TCP, or mutual TLS as a client machine of the cluster (a replica must present its
 *                         node's certificate)
 */
public record ReplyConnectorConfig(int maxFrameBytes, Duration reconnectMin, Duration reconnectMax, Duration connectTimeout,
                                   LinkSecurity security) {

    /** Validates. */
    public ReplyConnectorConfig {
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(reconnectMin, "reconnectMin");
        Objects.requireNonNull(reconnectMax, "reconnectMax");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        if (maxFrameBytes < 64) {
            throw new IllegalArgumentException("maxFrameBytes must be at least 64, got " + maxFrameBytes);
        }
        if (reconnectMin.toMillis() < 1 || reconnectMax.compareTo(reconnectMin) < 0 || connectTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("reconnectMin and connectTimeout must be at least 1 ms and reconnectMax at least"
                    + " reconnectMin, got " + reconnectMin + ", " + reconnectMax + ", " + connectTimeout);
        }
    }

    /** The defaults: replies up to 4 MiB, reconnects after 50 ms doubling to 2 s, 1 s connect timeout, plain TCP. */
    public static ReplyConnectorConfig defaults() {
        return new ReplyConnectorConfig(4 << 20, Duration.ofMillis(50), Duration.ofSeconds(2), Duration.ofSeconds(1),
                LinkSecurity.plain());
    }

    /** A copy over {@code newSecurity}. */
    public ReplyConnectorConfig withSecurity(LinkSecurity newSecurity) {
        return new ReplyConnectorConfig(maxFrameBytes, reconnectMin, reconnectMax, connectTimeout, newSecurity);
    }

    /** {@link #reconnectMin()} and {@link #reconnectMax()} as the shared transport's policy. */
    public ReconnectPolicy reconnectPolicy() {
        return new ReconnectPolicy(reconnectMin, reconnectMax);
    }

    /** A copy with other reconnect delays. */
    public ReplyConnectorConfig withReconnect(Duration min, Duration max) {
        return new ReplyConnectorConfig(maxFrameBytes, min, max, connectTimeout, security);
    }

    /** A copy with another frame bound. */
    public ReplyConnectorConfig withMaxFrameBytes(int bytes) {
        return new ReplyConnectorConfig(bytes, reconnectMin, reconnectMax, connectTimeout, security);
    }
}
