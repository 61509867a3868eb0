package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;

/**
 * Where one replica's {@link PbftBroadcast} hands the client requests it signs: the request inboxes of that replica's
 * pillars, and the way their refusals come back. {@link LoopbackNetwork#intake(int)} gives one per replica of an
 * in-JVM cluster; {@code io.psmr.ordering.pbft.net.PbftNettyTransport} is one for the replica of its process.
 *
 * <p>Thread safety: both methods from any thread; neither blocks.
 */
public interface RequestIntake {

    /**
     * Hands {@code request} to {@code pillar} of this replica, encoded.
     *
     * @return false if that pillar's request inbox is full (nothing was queued)
     */
    boolean submit(int pillar, Request request);

    /**
     * Where this replica's pillars report the requests they refuse ({@link PillarNetwork#refused}); replaces any
     * earlier listener. The listener is called on the refusing pillar's agent thread and must not block.
     */
    void onRefused(RefusedRequests listener);
}
