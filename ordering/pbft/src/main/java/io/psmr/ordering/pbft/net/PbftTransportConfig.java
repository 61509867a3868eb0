package io.psmr.ordering.pbft.net;

import io.psmr.ordering.pbft.PbftCodec;
import io.psmr.ordering.pbft.EnvelopeCodec;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.ReconnectPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * The bounds and timings of a {@link PbftNettyTransport}. Every buffer it has is bounded by one of these.
 *
 * @param maxFrameBytes         largest envelope frame sent or accepted; a longer inbound length prefix refuses the
 *                              connection ({@link RefusalReason#OVERSIZED_FRAME}), a longer outbound frame is dropped
 * @param sendQueueFrames       frames queued per outgoing connection (one per peer replica per pillar) while the
 *                              connection is down or not writable; beyond that new frames are dropped
 * @param inboxFrames           frames buffered per pillar for its agent; beyond that new frames are dropped
 * @param requestInboxCapacity  client requests buffered per pillar for its agent
 * @param maxInboundConnections connections a pillar's port holds at once (n-1 peers need n-1; the rest is slack for
 *                              reconnects whose old connection is still closing)
 * @param writeHighWaterBytes   bytes Netty buffers on an outgoing connection before it stops taking frames from
 *                              the send queue (until half drains)
 * @param connectTimeout        one connection attempt's limit
 * @param reconnect             delays between attempts ({@link ReconnectPolicy})
 * @param security              plain TCP or mutual TLS on every pillar link; under TLS only nodes reach a pillar port,
 *                              and a hello must name the replica whose certificate the connection presented
 */
public record PbftTransportConfig(int maxFrameBytes, int sendQueueFrames, int inboxFrames, int requestInboxCapacity,
                                  int maxInboundConnections, int writeHighWaterBytes, Duration connectTimeout,
                                  ReconnectPolicy reconnect, LinkSecurity security) {

    /** Validates; names the bad value. */
    public PbftTransportConfig {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(reconnect, "reconnect");
        Objects.requireNonNull(security, "security");
        if (maxFrameBytes < 12 || sendQueueFrames < 1 || inboxFrames < 1 || requestInboxCapacity < 1
                || maxInboundConnections < 1 || writeHighWaterBytes < 2 || connectTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("PBFT transport config: maxFrameBytes at least 12, queues, inboxes and"
                    + " connections at least 1, writeHighWaterBytes at least 2, connectTimeout at least 1 ms; got"
                    + " maxFrameBytes " + maxFrameBytes + ", sendQueueFrames " + sendQueueFrames + ", inboxFrames "
                    + inboxFrames + ", requestInboxCapacity " + requestInboxCapacity + ", maxInboundConnections "
                    + maxInboundConnections + ", writeHighWaterBytes " + writeHighWaterBytes + ", connectTimeout "
                    + connectTimeout);
        }
    }

    /**
     * Defaults: frames up to the largest envelope {@link EnvelopeCodec} decodes, 4,096 frames per send queue and per
     * inbox, 4,096 requests per request inbox, 64 inbound connections per pillar port, a 1 MiB write mark, 2 s
     * connect timeout, reconnect after 50 ms doubling to 2 s, plain TCP.
     */
    public static PbftTransportConfig defaults() {
        return new PbftTransportConfig(20 + PbftCodec.MAX_BYTES + EnvelopeCodec.MAX_MAC_BYTES, 4096, 4096, 4096, 64,
                1 << 20, Duration.ofSeconds(2), new ReconnectPolicy(Duration.ofMillis(50), Duration.ofSeconds(2)),
                LinkSecurity.plain());
    }

    /** The same with {@code bytes} as the frame limit. */
    public PbftTransportConfig withMaxFrameBytes(int bytes) {
        return new PbftTransportConfig(bytes, sendQueueFrames, inboxFrames, requestInboxCapacity, maxInboundConnections,
                writeHighWaterBytes, connectTimeout, reconnect, security);
    }

    /** The same with {@code policy} between connection attempts. */
    public PbftTransportConfig withReconnect(ReconnectPolicy policy) {
        return new PbftTransportConfig(maxFrameBytes, sendQueueFrames, inboxFrames, requestInboxCapacity,
                maxInboundConnections, writeHighWaterBytes, connectTimeout, policy, security);
    }

    /** The same with {@code newSecurity} on every link. */
    public PbftTransportConfig withSecurity(LinkSecurity newSecurity) {
        return new PbftTransportConfig(maxFrameBytes, sendQueueFrames, inboxFrames, requestInboxCapacity,
                maxInboundConnections, writeHighWaterBytes, connectTimeout, reconnect, newSecurity);
    }
}
