package io.psmr.ordering.pbft.net;

/**
 * Why a {@link PbftNettyTransport} closed an inbound pillar connection; each is counted apart
 * ({@link PbftTransportStats#refusals()}). Bad MACs are not among them: the pillar core verifies MACs and counts
 * those it drops.
 */
public enum RefusalReason {
    /** The first frame is not a {@link PillarHello}, or names another replica as the receiver. */
    MALFORMED_HELLO,
    /** The hello names a replica id outside {@code 0..n-1}, or this replica itself. */
    UNKNOWN_REPLICA,
    /** The hello names a pillar outside {@code 0..Np-1}, or another pillar than the port it reached. */
    PILLAR_OUT_OF_RANGE,
    /** Under TLS, the hello names another replica than the certificate the connection presented. */
    IMPOSTOR,
    /** The same (replica, pillar) already has an open connection here. */
    DUPLICATE_CONNECTION,
    /** A frame after the hello is too short to be an envelope, or the framing itself is broken. */
    MALFORMED_FRAME,
    /** A frame's length prefix exceeds {@link PbftTransportConfig#maxFrameBytes()}. */
    OVERSIZED_FRAME,
    /** An envelope whose {@code from}, {@code to} or {@code pillar} differs from what the hello established. */
    FORGED_ENVELOPE,
    /** The pillar's port already holds {@link PbftTransportConfig#maxInboundConnections()} connections. */
    CONNECTION_LIMIT
}
