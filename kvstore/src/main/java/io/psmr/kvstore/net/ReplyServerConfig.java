package io.psmr.kvstore.net;

import io.psmr.ordering.transport.LinkSecurity;
import java.time.Duration;
import java.util.Objects;

/**
 * Bounds of a {@link ReplyServer}.
 *
 * @param maxConnections      most connections held at once, identified or not; a further one is closed at once
 *                            (with a WARN line, counted in {@link ReplyServer#refusedConnections()})
 * @param maxFrameBytes       largest reply body sent; a larger reply is dropped and counted (it cannot happen
 *                            when this is at least the replicas' {@code maxValueBytes} + 2 KiB)
 * @param writeHighWaterBytes bytes queued on one proxy's connection beyond which replies to that proxy are
 *                            dropped and counted until it drains to half of this; the proxy's retry is answered
 *                            from the replica's reply cache. Memory is at most this per connection.
 * @param helloTimeout        how long a new connection may take to send its hello before it is closed
 * @param security            plain TCP, or mutual TLS admitting the cluster's nodes and client machines
 */
public record ReplyServerConfig(int maxConnections, int maxFrameBytes, int writeHighWaterBytes, Duration helloTimeout,
                                LinkSecurity security) {

    /** Validates. */
    public ReplyServerConfig {
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(helloTimeout, "helloTimeout");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1, got " + maxConnections);
        }
        if (maxFrameBytes < 64) {
            throw new IllegalArgumentException("maxFrameBytes must be at least 64, got " + maxFrameBytes);
        }
        if (writeHighWaterBytes < 1024) {
            throw new IllegalArgumentException("writeHighWaterBytes must be at least 1024, got " + writeHighWaterBytes);
        }
        if (helloTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("helloTimeout must be at least 1 ms, got " + helloTimeout);
        }
    }

    /** The defaults: 256 connections, replies up to 4 MiB, 1 MiB queued per proxy, 10 s to say hello, plain TCP. */
    public static ReplyServerConfig defaults() {
        return new ReplyServerConfig(256, 4 << 20, 1 << 20, Duration.ofSeconds(10), LinkSecurity.plain());
    }

    /** A copy over {@code newSecurity}. */
    public ReplyServerConfig withSecurity(LinkSecurity newSecurity) {
        return new ReplyServerConfig(maxConnections, maxFrameBytes, writeHighWaterBytes, helloTimeout, newSecurity);
    }

    /** A copy with another connection bound. */
    public ReplyServerConfig withMaxConnections(int n) {
        return new ReplyServerConfig(n, maxFrameBytes, writeHighWaterBytes, helloTimeout, security);
    }

    /** A copy with another write high-water mark. */
    public ReplyServerConfig withWriteHighWaterBytes(int bytes) {
        return new ReplyServerConfig(maxConnections, maxFrameBytes, bytes, helloTimeout, security);
    }

    /** A copy with another hello timeout. */
    public ReplyServerConfig withHelloTimeout(Duration timeout) {
        return new ReplyServerConfig(maxConnections, maxFrameBytes, writeHighWaterBytes, timeout, security);
    }
}
