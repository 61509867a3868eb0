package io.psmr.ordering.pbft.net;

/**
 * Why a {@link PbftNettyTransport} dropped a frame without closing anything; each is counted apart
 * ({@link PbftTransportStats#drops()}). PBFT retransmits what matters, so dropping is how the transport stays
 * bounded without ever blocking a pillar.
 */
public enum DropReason {
    /** The connection's send queue held {@link PbftTransportConfig#sendQueueFrames()} frames (a slow or absent peer). */
    SEND_QUEUE_FULL,
    /** The receiving pillar's inbox held {@link PbftTransportConfig#inboxFrames()} frames (a slow pillar). */
    INBOX_FULL,
    /** An outgoing envelope encodes to more than {@link PbftTransportConfig#maxFrameBytes()}: the peer would refuse it. */
    FRAME_TOO_LARGE,
    /** An outgoing envelope addressed to this replica, another sender, or a replica or pillar that does not exist. */
    UNROUTABLE,
    /** The transport is closed. */
    CLOSED
}
