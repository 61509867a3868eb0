package io.psmr.ordering.pbft.net;

import java.net.InetSocketAddress;

/**
 * Where each pillar of each replica listens: every pillar has its own port, so each pillar's connections are served by
 * that pillar's own event loop from the first byte. Asked at every connection attempt, so an address may become
 * known (or change, after a restart on another port) late.
 *
 * <p>Called on the connecting pillar's event loop; must not block and must be thread-safe.
 */
@FunctionalInterface
public interface PeerAddresses {
    /** The address of {@code pillar} of {@code replica}, or null if it is not known yet. */
    InetSocketAddress of(int replica, int pillar);
}
